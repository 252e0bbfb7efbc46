// vaultctx ui, Chat: a question is posted, the answer read as Server-Sent Events while it
// arrives. Text from the model is only ever set as text; the finished answer is the server's
// rendering (markdown without raw HTML, links checked), like a note's.
"use strict";

(function () {
  const form = document.getElementById("chat-form");
  if (!form) {
    return;
  }
  const turns = document.getElementById("turns");
  const question = document.getElementById("question");
  const ask = document.getElementById("ask");
  const stop = document.getElementById("stop");
  const regen = document.getElementById("regen");
  const files = document.getElementById("attach");
  const saved = document.getElementById("conversation");
  const words = turns.dataset;
  // Sent with every change: only the UI's own pages know it (the guard refuses a change without).
  const csrf = document.querySelector("meta[name='csrf-token']").content;
  let controller = null;
  let lastQuestion = "";

  function add(parent, tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    parent.appendChild(element);
    return element;
  }

  function list(parent, title, items, render) {
    if (!items.length) return;
    add(parent, "h3", "", title);
    const ul = add(parent, "ul", "");
    items.forEach(function (item) { render(add(ul, "li", ""), item); });
  }

  function finish(turn, answer, data) {
    answer.innerHTML = data.html; // rendered and escaped by the server
    const missing = new Set(data.unresolved.map(function (item) { return item.citation; }));
    answer.querySelectorAll("a.wikilink").forEach(function (link) {
      if (missing.has("[[" + link.textContent + "]]")) {
        link.classList.add("unresolved"); // flagged where it stands, too
      }
    });
    list(turn, words.sources, data.sources, function (li, citation) {
      const link = add(li, "a", "source", citation);
      link.href = "/note?path=" + encodeURIComponent(citation.split("#")[0]);
    });
    list(turn, words.unresolved, data.unresolved, function (li, item) {
      li.className = "unresolved";
      li.textContent = item.citation + " — " + item.message;
    });
    if (data.error) add(turn, "p", "problem", data.error);
    if (data.stopped) add(turn, "p", "notice", data.stopped);
    if (data.conversation) {
      add(turn, "p", "meta", words.saved.replace("{id}", data.conversation));
      // The page's conversation from now on: a server that forgot this page's session (it
      // keeps the last 20) continues the saved one instead of starting afresh.
      saved.value = data.conversation;
    }
  }

  function ask_user(turn, data) {
    const box = add(turn.querySelector(".steps"), "div", "confirm");
    box.setAttribute("role", "group");
    add(box, "p", "", words.confirm + " " + data.tool);
    add(box, "pre", "", data.diff || data.args);
    [["yes", words.yes], ["no", words.no], ["always", words.always]].forEach(function (pair) {
      const button = add(box, "button", "decide-" + pair[0], pair[1]);
      button.type = "button";
      button.addEventListener("click", async function () {
        box.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
        const body = new URLSearchParams({ id: data.id, decision: pair[0] });
        const response = await fetch("/chat/confirm", {
          method: "POST", body: body, credentials: "same-origin",
          headers: { "X-CSRF-Token": csrf },
        });
        box.dataset.decided = response.ok ? pair[0] : "expired";
        add(box, "p", "meta", response.ok ? pair[1] : words.expired);
      });
    });
    box.querySelector("button").focus();
  }

  function handle(turn, answer, kind, data) {
    if (kind === "text") {
      if (!answer.dataset.firstMs) {
        answer.dataset.firstMs = (performance.now() - Number(turn.dataset.started)).toFixed(1);
        // When the first words are on screen (the next frame), on the wall clock: the tests
        // compare it with when the backend sent them.
        requestAnimationFrame(function () {
          answer.dataset.firstShownAt = (performance.timeOrigin + performance.now()).toFixed(2);
        });
      }
      answer.textContent += data;
    } else if (kind === "tool") {
      const step = add(turn.querySelector(".steps"), "details", "tool-step");
      add(step, "summary", "", words.tools + ": " + data.name);
      add(step, "pre", "", data.args + "\n→ " + data.result);
    } else if (kind === "confirm") {
      ask_user(turn, data);
    } else if (kind === "done") {
      finish(turn, answer, data);
    } else if (kind === "failure") {
      add(turn, "p", "problem", data.message + " — " + data.suggestion);
    }
  }

  async function send(text, again) {
    const turn = add(turns, "section", "turn");
    turn.dataset.started = String(performance.now());
    add(turn, "p", "question", words.you + ": " + text);
    const names = Array.from(files.files).map(function (file) { return file.name; });
    if (names.length) add(turn, "p", "meta attached", "📎 " + names.join(", "));
    add(turn, "div", "steps");
    const answer = add(turn, "div", "answer markdown");
    answer.setAttribute("aria-label", words.answer);
    controller = new AbortController();
    ask.disabled = true;
    regen.disabled = true;
    stop.disabled = false;
    try {
      const body = new FormData(form); // multipart: the question, and the attached files
      if (again) {
        body.set("question", text);
        body.set("regenerate", "1");
        body.delete("attach");
      }
      const response = await fetch("/chat/ask", {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf },
        signal: controller.signal,
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const kind = /^event: (.*)$/m.exec(event);
          const data = /^data: (.*)$/m.exec(event);
          if (kind && data) handle(turn, answer, kind[1], JSON.parse(data[1]));
        }
      }
      turn.dataset.state = "done";
      lastQuestion = text;
      regen.disabled = false;
    } catch (error) {
      turn.dataset.state = "stopped";
      add(turn, "p", "notice", words.stopped);
    } finally {
      controller = null;
      ask.disabled = false;
      stop.disabled = true;
      question.focus();
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const text = question.value.trim();
    if (!text || controller) return;
    send(text).finally(function () { files.value = ""; });
    question.value = "";
  });
  question.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  // Files dropped anywhere on the form join those chosen with the file button.
  form.addEventListener("dragover", function (event) {
    event.preventDefault();
    form.classList.add("dropping");
  });
  form.addEventListener("dragleave", function () { form.classList.remove("dropping"); });
  form.addEventListener("drop", function (event) {
    event.preventDefault();
    form.classList.remove("dropping");
    const all = new DataTransfer();
    Array.from(files.files).concat(Array.from(event.dataTransfer.files)).forEach(function (f) {
      all.items.add(f);
    });
    files.files = all.files;
  });
  // Regenerate: the last question again; the earlier answer stays on the page and in the
  // saved conversation (vaultctx chat's /regen).
  regen.addEventListener("click", function () {
    if (!lastQuestion || controller) return;
    regen.disabled = true;
    send(lastQuestion, true);
  });
  stop.addEventListener("click", function () {
    if (controller) controller.abort();
  });
  // The page comes with the question box and Send disabled: a question typed before this
  // script ran would have been sent nowhere (Enter only added a line). Now it can be asked.
  question.disabled = false;
  ask.disabled = false;
})();
