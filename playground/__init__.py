"""The Slack playground: the real bot in HTTP mode, a local Slack Web API and a browser page that
behaves like a Slack channel, all on loopback (`diagnose playground`). Nothing here talks to Slack.

- `slack_api`: the Web API stand-in (the bot's `SLACK_API_URL`), recording every call;
- `workspace`: what that Slack holds (channels, messages, files, modals) and who may see what;
- `requests`: the requests Slack sends the bot (commands, events, interactions), signed as Slack does;
- `page`: the web page's server (plain HTML and JavaScript, no build step), live over SSE;
- `launch`: the bot as a child process (`diagnose bot --http`), the simulator, the page.
"""
