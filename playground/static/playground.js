// The playground's page: a Slack channel drawn from the local workspace, live over Server-Sent
// Events. Every message body arrives as HTML already rendered (and escaped) by the server from the
// message's Block Kit; this script only places it, and turns clicks, choices, typing and modal
// submits into requests to the page's server, which sends them to the bot signed as Slack does.
"use strict";

const state = { user: null, channel: null, lang: "en", labels: {}, thread: null, data: null, view: null };

function $(id) { return document.getElementById(id); }

function label(key, values) {
  let text = state.labels[key] || key;
  for (const [name, value] of Object.entries(values || {})) text = text.replace("{" + name + "}", String(value));
  return text;
}

async function getJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  return response.json();
}

async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json();
  showHint(answer);
  return answer;
}

function showNotice(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.hidden = !text;
}

function showHint(answer) {
  if (!answer) return;
  if (answer.hint) {
    showNotice(label(answer.hint, { command: answer.command || "", error: answer.error || "" }));
    return;
  }
  const replies = Array.isArray(answer.bot) ? answer.bot : answer.bot ? [answer.bot] : [];
  const failed = replies.find((reply) => reply.status !== 200);
  if (failed) showNotice(label("bot_refused", { status: failed.status, body: failed.body }));
  else if (!answer.ok && answer.error) showNotice(answer.error);
  else showNotice("");
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fileNode(file) {
  const box = element("div", "file");
  box.appendChild(element("div", "file-title", file.title));
  if (file.mimetype === "image/png") {
    const image = document.createElement("img");
    image.src = file.url;
    image.alt = file.alt;
    image.className = "file-image";
    box.appendChild(image);
  } else {
    const details = document.createElement("details");
    details.className = "file-text";
    const summary = element("summary", "", label("file") + ": " + file.filename);
    details.appendChild(summary);
    const pre = element("pre", "file-text");
    details.appendChild(pre);
    details.addEventListener("toggle", async () => {
      if (details.open && !pre.textContent) pre.textContent = await (await fetch(file.url)).text();
    }, { once: true });
    box.appendChild(details);
  }
  return box;
}

function messageNode(message, { inThread }) {
  const node = element("div", "msg message" + (message.ephemeral ? " ephemeral" : "") + (message.bot ? " from-bot" : " from-person"));
  node.dataset.ts = message.ts;
  const avatar = element("div", "avatar" + (message.bot ? "" : " person"), message.bot ? "D" : message.name.slice(0, 1).toUpperCase());
  const body = element("div", "body");
  const meta = element("div", "meta");
  meta.appendChild(element("span", "name", message.name));
  if (message.bot) meta.appendChild(element("span", "app", label("app")));
  if (message.ephemeral) meta.appendChild(element("span", "ephemeral-tag", label("only_you")));
  if (message.edited) meta.appendChild(element("span", "edited", label("edited")));
  body.appendChild(meta);
  const content = element("div", "content");
  content.innerHTML = message.html;  // rendered and escaped by the server's Block Kit renderer
  body.appendChild(content);
  for (const file of message.files) body.appendChild(fileNode(file));
  if (message.reactions.length) {
    const reactions = element("div", "reactions");
    for (const name of message.reactions) reactions.appendChild(element("span", "reaction", ":" + name + ":"));
    body.appendChild(reactions);
  }
  if (!inThread && message.reply_count) {
    const count = message.reply_count === 1 ? label("reply_one") : label("replies", { count: message.reply_count });
    const link = element("button", "replies", count);
    link.type = "button";
    link.addEventListener("click", () => openThread(message.ts));
    body.appendChild(link);
  }
  node.appendChild(avatar);
  node.appendChild(body);
  return node;
}

function render() {
  const data = state.data;
  if (!data) return;
  const list = $("messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.replaceChildren();
  if (!data.messages.length) list.appendChild(element("div", "empty", label("no_messages")));
  for (const message of data.messages) list.appendChild(messageNode(message, { inThread: false }));
  if (stick) list.scrollTop = list.scrollHeight;
  renderThread();
  renderModal();
}

function renderThread() {
  const panel = $("thread-panel");
  if (!state.thread) { panel.hidden = true; return; }
  const parent = state.data.messages.find((message) => message.ts === state.thread);
  const replies = state.data.threads[state.thread] || [];
  panel.hidden = false;
  const list = $("thread-messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.replaceChildren();
  if (parent) list.appendChild(messageNode(parent, { inThread: true }));
  for (const reply of replies) list.appendChild(messageNode(reply, { inThread: true }));
  if (stick) list.scrollTop = list.scrollHeight;
}

function renderModal() {
  const views = state.data.views;
  const backdrop = $("modal-backdrop");
  if (!views.length) { backdrop.hidden = true; state.view = null; return; }
  const view = views[views.length - 1];
  if (state.view === view.id && !backdrop.hidden) return;  // keep what is being typed
  state.view = view.id;
  $("modal-title").textContent = view.title;
  $("modal-body").innerHTML = view.html;  // rendered and escaped by the server
  $("modal-submit").textContent = view.submit || label("modal_submit");
  $("modal-submit").hidden = !view.submit;
  $("modal-close").textContent = view.close || label("modal_cancel");
  backdrop.hidden = false;
  const first = $("modal-body").querySelector("[data-input]");
  if (first) first.focus();
}

function openThread(ts) {
  state.thread = ts;
  renderThread();
  $("thread-composer").focus();
}

async function refresh() {
  if (!state.user || !state.channel) return;
  state.data = await getJson(`/api/channel?channel=${encodeURIComponent(state.channel)}&user=${encodeURIComponent(state.user)}`);
  render();
}

function actionOf(control) {
  const action = JSON.parse(control.dataset.action);
  if (control.tagName === "SELECT") {
    const chosen = control.options[control.selectedIndex];
    action.selected_option = { text: { type: "plain_text", text: chosen.textContent }, value: chosen.value };
  }
  return action;
}

async function sendAction(control) {
  const holder = control.closest(".message");
  if (!holder) return;
  await postJson("/api/action", { user: state.user, channel: state.channel, message_ts: holder.dataset.ts, action: actionOf(control) });
}

function onMessagesClick(event) {
  const control = event.target.closest("button[data-action]");
  if (control) sendAction(control);
}

function onMessagesChange(event) {
  const control = event.target.closest("select[data-action]");
  if (control && control.value) sendAction(control);
}

async function send(textarea, threadTs) {
  const text = textarea.value.trim();
  if (!text) return;
  textarea.value = "";
  const answer = await postJson("/api/send", { user: state.user, channel: state.channel, text, thread_ts: threadTs });
  if (answer && answer.ok && threadTs === null && answer.ts && text.toLowerCase().startsWith("@diagnose")) openThread(answer.ts);
}

function modalValues() {
  const values = {};
  for (const field of $("modal-body").querySelectorAll("[data-input]")) {
    const ids = JSON.parse(field.dataset.input);
    const entry = { type: ids.type };
    if (field.tagName === "SELECT") {
      const chosen = field.options[field.selectedIndex];
      entry.selected_option = chosen && chosen.value ? { text: { type: "plain_text", text: chosen.textContent }, value: chosen.value } : null;
    } else {
      entry.value = field.value === "" ? null : field.value;
    }
    values[ids.block_id] = values[ids.block_id] || {};
    values[ids.block_id][ids.action_id] = entry;
  }
  return values;
}

async function submitModal() {
  for (const old of $("modal-body").querySelectorAll(".field-error")) old.remove();
  const answer = await postJson("/api/submit", { user: state.user, view_id: state.view, values: modalValues() });
  if (answer && answer.errors) {
    for (const [blockId, message] of Object.entries(answer.errors)) {
      for (const field of $("modal-body").querySelectorAll("[data-input]")) {
        if (JSON.parse(field.dataset.input).block_id === blockId) field.after(element("div", "field-error", message));
      }
    }
  }
}

function setChannel(channelId) {
  state.channel = channelId;
  state.thread = null;
  for (const item of $("channel-list").children) item.classList.toggle("active", item.dataset.id === channelId);
  const channel = state.setup.channels.find((item) => item.id === channelId);
  $("channel-title").textContent = "#" + channel.name;
  refresh();
}

function applyLabels() {
  $("label-as-user").textContent = label("as_user");
  $("label-channel").textContent = label("in_channel");
  $("label-language").textContent = label("page_language");
  $("banner").textContent = label("banner");
  $("composer").placeholder = label("composer_hint");
  $("thread-composer").placeholder = label("thread_hint");
  $("send").textContent = label("send");
  $("thread-send").textContent = label("send");
  $("thread-title").textContent = label("thread");
  $("thread-close").textContent = label("close");
  document.title = label("title");
  document.documentElement.lang = state.lang;
  $("cli-hint-title").textContent = label("cli_hint");
  $("cli-environment").textContent = (state.setup.cli_exports || []).join("\n");
}

async function loadSetup() {
  state.setup = await getJson(`/api/setup?lang=${encodeURIComponent(state.lang)}`);
  state.labels = state.setup.labels;
  applyLabels();
}

async function start() {
  await loadSetup();
  const users = $("user-select");
  for (const person of state.setup.people) {
    const option = element("option", "", person.name);
    option.value = person.id;
    users.appendChild(option);
  }
  state.user = state.setup.people[0].id;
  users.addEventListener("change", () => { state.user = users.value; state.thread = null; refresh(); });
  const languages = $("lang-select");
  for (const lang of state.setup.languages) {
    const option = element("option", "", lang);
    option.value = lang;
    languages.appendChild(option);
  }
  languages.addEventListener("change", async () => { state.lang = languages.value; await loadSetup(); render(); });
  for (const channel of state.setup.channels) {
    const item = element("li", "", "# " + channel.name);
    item.dataset.id = channel.id;
    item.addEventListener("click", () => setChannel(channel.id));
    $("channel-list").appendChild(item);
  }
  for (const list of [$("messages"), $("thread-messages")]) {
    list.addEventListener("click", onMessagesClick);
    list.addEventListener("change", onMessagesChange);
  }
  for (const [form, textarea, thread] of [["composer-form", "composer", false], ["thread-form", "thread-composer", true]]) {
    $(form).addEventListener("submit", (event) => { event.preventDefault(); send($(textarea), thread ? state.thread : null); });
    $(textarea).addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); send($(textarea), thread ? state.thread : null); }
    });
  }
  $("thread-close").addEventListener("click", () => { state.thread = null; renderThread(); });
  $("modal-submit").addEventListener("click", submitModal);
  $("modal-close").addEventListener("click", () => postJson("/api/close", { user: state.user, view_id: state.view }));
  setChannel(state.setup.channels[0].id);
  const events = new EventSource("/api/events");
  events.addEventListener("change", () => refresh());
  events.addEventListener("error", () => showNotice(label("connection_lost")));
  events.addEventListener("open", () => showNotice(""));
  $("composer").focus();
}

document.addEventListener("DOMContentLoaded", start);
