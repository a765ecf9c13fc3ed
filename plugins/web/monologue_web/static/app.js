// monologue serve: the sessions list and one session's narration, from the read-only API.
// Every value from a recording reaches the page through textContent, never as HTML.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token");
const SHOWN_BY_DEFAULT = ["chapter", "narrative", "narration_suppressed", "error", "completion"];

function api(path) {
  return token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;
}

function pageFor(sessionId) {
  const query = new URLSearchParams();
  if (sessionId) query.set("session", sessionId);
  if (token) query.set("token", token);
  const text = query.toString();
  return text ? `./?${text}` : "./";
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function when(iso) {
  const date = new Date(iso);
  return isNaN(date) ? String(iso) : date.toLocaleString();
}

function clock(iso) {
  const date = new Date(iso);
  return isNaN(date) ? "" : date.toLocaleTimeString();
}

function asText(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function connection(on, text) {
  const node = document.getElementById("connection");
  node.textContent = text;
  node.classList.toggle("on", on);
}

// ---------------------------------------------------------------- sessions list

function showList() {
  document.getElementById("list-view").hidden = false;
  const body = document.querySelector("#sessions tbody");
  const rows = new Map();
  const source = new EventSource(api("/api/sessions/stream"));
  source.onopen = () => connection(true, "live");
  source.onerror = () => connection(false, "reconnecting…");
  source.addEventListener("session", (message) => {
    const s = JSON.parse(message.data);
    let row = rows.get(s.id);
    if (!row) {
      row = el("tr", "session-row");
      row.dataset.id = s.id;
      row.addEventListener("click", () => { location.href = pageFor(s.id); });
      rows.set(s.id, row);
    }
    row.dataset.started = s.started_at;
    row.dataset.state = s.state;
    row.replaceChildren();
    // The first prompt tells sessions of one agent apart.
    const title = el("td", "title");
    const link = el("a", s.title ? null : "untitled", s.title || `session ${s.id}`);
    link.href = pageFor(s.id);
    title.append(link);
    const state = el("span", `state ${s.state}${s.failed ? " failed" : ""}`,
      s.failed ? "failed" : s.completed || s.state === "live" ? s.state : "stopped");
    const stateCell = el("td");
    stateCell.append(state);
    row.append(title, el("td", "agent", s.agent), el("td", null, when(s.started_at)), stateCell);
    for (const key of ["events", "narratives", "errors", "silences"]) {
      row.append(el("td", `num ${key}`, s[key]));
    }
    placeNewestFirst(body, row);
    document.getElementById("list-empty").hidden = true;
  });
  source.addEventListener("gone", (message) => {
    const id = JSON.parse(message.data).id;
    const row = rows.get(id);
    if (row) row.remove();
    rows.delete(id);
    document.getElementById("list-empty").hidden = rows.size > 0;
  });
}

function placeNewestFirst(body, row) {
  for (const other of body.children) {
    if (other !== row && other.dataset.started < row.dataset.started) {
      body.insertBefore(row, other);
      return;
    }
  }
  if (row.parentNode !== body) body.append(row);
}

// ---------------------------------------------------------------- one session

const view = {
  sessionId: null,
  events: [],          // every event received, in file order
  byId: new Map(),
  agents: new Set(),
  types: new Set(),
  shownTypes: new Set(SHOWN_BY_DEFAULT),
  agent: "",
  finished: false,
  header: null,
  failed: false,
  replay: null,        // the pending timer of a replay
};

function showSession(sessionId) {
  view.sessionId = sessionId;
  document.getElementById("session-view").hidden = false;
  document.getElementById("s-id").textContent = sessionId;
  document.getElementById("f-agent").addEventListener("change", (e) => {
    view.agent = e.target.value;
    redraw(view.events);
  });
  document.getElementById("r-start").addEventListener("click", startReplay);
  document.getElementById("r-stop").addEventListener("click", stopReplay);
  follow();
  refreshBoards();
  showTitle();
}

async function showTitle() {
  const response = await fetch(api(`/api/sessions/${encodeURIComponent(view.sessionId)}`));
  if (!response.ok) return;
  const summary = await response.json();
  if (!summary.title) return;
  const node = document.getElementById("s-title");
  node.textContent = summary.title;
  node.hidden = false;
  document.title = `${summary.title} · ${summary.agent} · monologue`;
}

function follow() {
  const base = `/api/sessions/${encodeURIComponent(view.sessionId)}`;
  const source = new EventSource(api(`${base}/stream`));
  source.onopen = () => connection(true, "live");
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) {
      connection(false, "reconnecting…");
    } else if (!view.header) {
      // Refused before its first message: the id names no recording in the folder.
      connection(false, "not found");
      document.getElementById("s-agent").textContent = "No such session in the record folder";
    }
  };
  source.addEventListener("header", (message) => {
    const header = JSON.parse(message.data);
    view.header = header;
    document.getElementById("s-agent").textContent = header.agent;
    document.getElementById("s-started").textContent = when(header.started_at);
    document.title = `${header.agent} · monologue`;
    setState("live");
  });
  source.addEventListener("event", (message) => receive(JSON.parse(message.data)));
  source.addEventListener("caught_up", () => { document.body.dataset.caughtUp = "1"; });
  source.addEventListener("end", () => {
    source.close();
    view.finished = true;
    connection(false, "finished");
    setState(view.failed ? "failed" : "finished");
    document.getElementById("r-start").disabled = false;
  });
}

function setState(state) {
  const node = document.getElementById("s-state");
  node.textContent = state;
  node.className = `state ${state}`;
}

function receive(event) {
  if (view.byId.has(event.id)) return;  // a resumed stream may repeat what it sent
  view.events.push(event);
  view.byId.set(event.id, event);
  if (event.type === "completion" && event.data.is_error) view.failed = true;
  noteFilters(event);
  updateCounts();
  if (!view.replay) place(event);
}

function updateCounts() {
  const count = (type) => view.events.filter((e) => e.type === type).length;
  const errors = view.events.filter(isError).length;
  document.getElementById("s-counts").textContent = [
    plural(view.events.length, "event"), plural(count("narrative"), "narrative"),
    plural(errors, "error"), plural(count("narration_suppressed"), "silence"),
  ].join(" · ");
}

function isError(event) {
  return event.type === "error" || (event.type === "tool_result" && event.data.is_error) ||
    (event.type === "completion" && event.data.is_error);
}

function noteFilters(event) {
  if (event.agent && !view.agents.has(event.agent)) {
    view.agents.add(event.agent);
    const option = el("option", null, event.agent);
    option.value = event.agent;
    document.getElementById("f-agent").append(option);
  }
  if (!view.types.has(event.type)) {
    view.types.add(event.type);
    const label = el("label");
    const box = el("input");
    box.type = "checkbox";
    box.value = event.type;
    box.checked = view.shownTypes.has(event.type);
    box.addEventListener("change", () => {
      if (box.checked) view.shownTypes.add(event.type);
      else view.shownTypes.delete(event.type);
      redraw(view.events);
    });
    label.append(box, ` ${event.type}`);
    document.getElementById("f-types").append(label);
  }
}

function visible(event) {
  return view.shownTypes.has(event.type) && (!view.agent || event.agent === view.agent);
}

function place(event) {
  if (!visible(event)) return;
  const timeline = document.getElementById("timeline");
  const item = entry(event);
  if (event.type === "chapter") {
    foldChapter(timeline, item, event);
    return;
  }
  // The completion stays last: the final narrative is recorded after it.
  timeline.insertBefore(item, timeline.querySelector(":scope > li.completion"));
}

// A chapter is a heading over the narratives it covers (named in `covers`, or covering the
// same events), folded into it: its summary stands for them until it is opened.
function foldChapter(timeline, item, event) {
  const ids = (value) => (Array.isArray(value) ? value : []);
  const covered = new Set(ids(event.data.covers));
  const inside = [...timeline.children].filter((node) => {
    if (node.classList.contains("chapter") || node.classList.contains("completion")) return false;
    const shown = view.byId.get(node.dataset.id);
    return covered.has(node.dataset.id) || ids(shown && shown.data.covers).some((id) => covered.has(id));
  });
  timeline.insertBefore(item, inside[0] || timeline.querySelector(":scope > li.completion"));
  const body = item.querySelector(".chapter-body");
  body.append(...inside);
  const toggle = item.querySelector(".chapter-title > .toggle");
  const count = `${inside.length} ${inside.length === 1 ? "entry" : "entries"}`;
  const label = (open) => `${open ? "▾" : "▸"} ${count}`;
  toggle.textContent = label(false);
  toggle.hidden = !inside.length;
  toggle.addEventListener("click", () => {
    body.hidden = !body.hidden;
    toggle.textContent = label(!body.hidden);
  });
}

function redraw(events) {
  document.getElementById("timeline").replaceChildren();
  events.forEach(place);
}

function entry(event) {
  const item = el("li", `entry ${event.type}`);
  item.dataset.id = event.id;
  if (isError(event)) item.classList.add("is-error");
  item.append(el("span", "when", clock(event.ts)), el("span", "who", event.agent));
  if (event.type === "narrative") {
    item.append(el("span", "text", event.data.text));
    const covers = event.data.covers || [];
    if (covers.some((id) => view.byId.has(id) && isError(view.byId.get(id)))) {
      item.classList.add("is-error");
    }
    if (covers.length) {
      const toggle = el("button", "toggle", `▸ ${covers.length} events`);
      toggle.type = "button";
      toggle.addEventListener("click", () => expand(item, toggle, covers));
      item.append(toggle);
    }
  } else if (event.type === "chapter") {
    const toggle = el("button", "toggle");
    toggle.type = "button";
    const heading = el("h2", "chapter-title", event.data.title || "chapter");
    heading.append(toggle);
    const body = el("ol", "chapter-body");
    body.hidden = true;
    item.append(heading, el("p", "summary", event.data.summary), body);
  } else if (event.type === "narration_suppressed") {
    item.classList.add("silence");
    item.append(el("span", "text", `silent: ${event.data.reason}`));
  } else {
    item.append(...details(event));
  }
  return item;
}

function expand(item, toggle, covers) {
  const open = item.querySelector(".covered");
  if (open) {
    open.remove();
    toggle.textContent = `▸ ${covers.length} events`;
    return;
  }
  const list = el("ol", "covered");
  for (const id of covers) {
    const event = view.byId.get(id);
    if (!event) {
      list.append(el("li", "missing", `${id} (not in this recording)`));
    } else if (!view.agent || event.agent === view.agent) {
      const row = el("li", `event ${event.type}`);
      if (isError(event)) row.classList.add("is-error");
      row.append(...details(event));
      list.append(row);
    }
  }
  item.append(list);
  toggle.textContent = `▾ ${covers.length} events`;
}

function details(event) {
  const d = event.data;
  const parts = [];
  if (event.type === "tool_call") {
    parts.push(el("span", "kind", `→ ${d.tool_name}`), el("pre", "input", asText(d.input)));
  } else if (event.type === "tool_result") {
    parts.push(el("span", "kind", d.is_error ? `✗ ${d.tool_name || "result"} failed` : `← ${d.tool_name || "result"}`));
    parts.push(el("pre", "output", asText(d.output)));
  } else if (event.type === "error") {
    parts.push(el("span", "kind", `✗ error${d.error_type ? ` (${d.error_type})` : ""}`), el("span", null, d.message));
  } else if (event.type === "completion") {
    parts.push(el("span", "kind", d.is_error ? "✗ the session failed" : "✓ the session completed"));
    if (d.result !== null && d.result !== undefined && d.result !== "") parts.push(el("pre", "output", asText(d.result)));
  } else if (typeof d.text === "string") {
    parts.push(el("span", "kind", event.type), el("span", null, d.text));
  } else {
    parts.push(el("span", "kind", event.type), el("pre", null, asText(d)));
  }
  if (event.full) {
    const link = el("a", "full", "cut here: the full event");
    link.href = api(event.full);
    link.target = "_blank";
    link.rel = "noopener";
    parts.push(link);
  }
  return parts;
}

// ---------------------------------------------------------------- replay

function startReplay() {
  stopReplay();
  const speed = Number(document.getElementById("r-speed").value) || 1;
  const events = view.events.slice();
  document.getElementById("timeline").replaceChildren();
  document.getElementById("r-stop").hidden = false;
  document.body.dataset.replaying = "1";
  let index = 0;
  const step = () => {
    place(events[index]);
    index += 1;
    if (index >= events.length) { stopReplay(); return; }
    // Follow the recorded timestamps, `speed` times faster; no pause longer than 2 s.
    const gap = (Date.parse(events[index].ts) - Date.parse(events[index - 1].ts)) / speed;
    view.replay = setTimeout(step, Math.min(Math.max(gap, 0), 2000));
  };
  if (events.length) view.replay = setTimeout(step, 0);
}

function stopReplay() {
  if (view.replay) clearTimeout(view.replay);
  view.replay = null;
  document.getElementById("r-stop").hidden = true;
  delete document.body.dataset.replaying;
}

// ---------------------------------------------------------------- boards

async function refreshBoards() {
  const response = await fetch(api(`/api/sessions/${encodeURIComponent(view.sessionId)}/boards`));
  if (!response.ok) return;
  const boards = await response.json();
  drawTasks(boards.tasks, boards.tasks_problem);
  drawStatus(boards.status);
  const shown = boards.tasks || boards.tasks_problem || boards.status;
  document.getElementById("boards").hidden = !shown;
  if (!view.finished && shown) setTimeout(refreshBoards, 2000);
}

function drawTasks(tasks, problem) {
  const section = document.getElementById("tasks");
  section.hidden = !tasks && !problem;
  const list = section.querySelector("ul");
  list.replaceChildren();
  if (problem) list.append(el("li", "is-error", problem));
  for (const task of tasks || []) {
    const item = el("li", `task ${task.status}${task.current ? " current" : ""}`);
    item.dataset.id = task.id;
    item.append(el("span", `task-state state ${task.status}`, task.status), el("span", "kind", task.type),
      el("span", "hint", task.owner ? `${task.id} · ${task.owner}` : task.id));
    if (task.depends_on.length) item.append(el("div", "hint", `after ${task.depends_on.join(", ")}`));
    list.append(item);
  }
}

function drawStatus(status) {
  const section = document.getElementById("status");
  section.hidden = !status;
  if (!status) return;
  const list = section.querySelector("dl");
  list.replaceChildren();
  for (const [key, value] of Object.entries(status)) {
    list.append(el("dt", null, key), el("dd", null, asText(value)));
  }
}

// ---------------------------------------------------------------- start

document.getElementById("home").href = pageFor(null);
const sessionId = params.get("session");
if (sessionId) showSession(sessionId);
else showList();
