// vaultctx ui: results without a page reload, keyboard moves, re-index progress.
// No inline script anywhere (the Content-Security-Policy forbids it); every page works without
// this file too, only slower and without the shortcuts.
"use strict";

(function () {
  const form = document.getElementById("search-form");
  const results = document.getElementById("results");
  const query = document.getElementById("q");

  function resultLinks() {
    return Array.from(document.querySelectorAll("#results a.result-link"));
  }

  async function runSearch() {
    const params = new URLSearchParams(new FormData(form));
    const started = performance.now();
    const response = await fetch("/search/results?" + params.toString(), {
      credentials: "same-origin",
    });
    const html = await response.text();
    results.innerHTML = html; // server-rendered, escaped
    const took = performance.now() - started;
    results.dataset.roundtripMs = took.toFixed(1);
    results.dataset.searches = String(Number(results.dataset.searches || "0") + 1);
    history.replaceState(null, "", "/search?" + params.toString());
  }

  if (form && results) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (query.value.trim()) {
        runSearch();
      }
    });
  }

  document.addEventListener("keydown", function (event) {
    const target = event.target;
    const typing =
      target instanceof HTMLInputElement ||
      target instanceof HTMLTextAreaElement ||
      target instanceof HTMLSelectElement;
    if (event.key === "/" && query && !typing) {
      event.preventDefault();
      query.focus();
      query.select();
      return;
    }
    if (!results || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) {
      return;
    }
    const links = resultLinks();
    const position = links.indexOf(document.activeElement);
    if (target === query && event.key === "ArrowDown" && links.length) {
      event.preventDefault();
      links[0].focus();
    } else if (position >= 0) {
      event.preventDefault();
      if (event.key === "ArrowDown") {
        links[Math.min(position + 1, links.length - 1)].focus();
      } else if (position === 0) {
        query.focus();
      } else {
        links[position - 1].focus();
      }
    }
  });

  const job = document.getElementById("reindex");
  if (job && job.dataset.state === "running") {
    const timer = setInterval(async function () {
      const response = await fetch("/status/progress", { credentials: "same-origin" });
      const state = await response.json();
      job.dataset.state = state.state;
      if (state.state === "running") {
        const bar = job.querySelector("progress");
        if (bar) {
          bar.max = Math.max(state.total, 1);
          bar.value = state.done;
        }
        return;
      }
      clearInterval(timer);
      window.location.reload(); // fresh counts, and the run's outcome
    }, 500);
  }
})();

// The Review page: how many items are ticked, said as the user ticks them.
(function () {
  const list = document.getElementById("review-list");
  const count = document.getElementById("review-count");
  if (!list || !count) {
    return;
  }
  function update() {
    const ticked = list.querySelectorAll("input[type=checkbox]:checked").length;
    count.textContent = count.dataset.template.replace("#", String(ticked));
  }
  list.addEventListener("change", update);
  update();
})();
