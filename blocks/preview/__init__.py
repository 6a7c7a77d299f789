"""Previews of the bot's Slack messages: self-contained HTML and a headless-browser PNG."""
