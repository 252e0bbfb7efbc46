"""The Obsidian plugin's Python side: putting the built plugin into a vault, and finding or
starting the local server it talks to (the plugin's HTTP API is ``ui.plugin_api``)."""
