// guarded explore: the page. It holds no semantics: every move listed, every
// step taken and every value shown comes from the server's JSON API
// (docs/explore.md).
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let session = null;
let instance = null;
let state = null;
let picked = new Map(); // process -> move text, for daemons that move several
let watches = [];
let breaks = [];
let polling = null;

async function call(name, body) {
  const response = await fetch("/api/" + name, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign({ session }, body || {})),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

// What the last action did (plain), or why it failed (`failed`: in red).
function say(text, failed) {
  const line = $("message");
  line.textContent = text || "";
  line.classList.toggle("error", Boolean(failed));
}

// Runs an API call that changes the exploration and shows its new state.
async function act(name, body) {
  try {
    const answer = await call(name, body);
    if (answer.instance) setInstance(answer.instance);
    if (answer.state) await show(answer.state);
    return answer;
  } catch (e) {
    say(e.message, true);
    return null;
  }
}

function el(tag, attrs, text) {
  const e = document.createElementNS(tag === "svg" || attrs && attrs.svg ? SVG : "http://www.w3.org/1999/xhtml", tag);
  for (const [k, v] of Object.entries(attrs || {})) if (k !== "svg") e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
const svg = (tag, attrs, text) => el(tag, Object.assign({ svg: true }, attrs), text);

function setInstance(inst) {
  instance = inst;
  checkedText = inst.source;
  $("title").textContent = "guarded explore: " + inst.program;
  document.title = "explore " + inst.program;
  $("editor").value = inst.source;
  const select = $("daemon");
  select.replaceChildren(...inst.daemons.map((d) => el("option", { value: d }, d)));
}

// Where process p is drawn, in the SVG's units.
function place(p) {
  const [x, y] = instance.picture.places[p];
  return [90 + x * 820, 45 + y * 540];
}

function radius() {
  const n = instance.picture.n;
  return Math.max(6, Math.min(30, 260 / Math.sqrt(n)));
}

// What a process's label shows: every variable a label can show, one, or none.
function labelOf(p) {
  const row = state.rows[p];
  const pic = instance.picture;
  const shown = $("label-var").value;
  if (shown === "none") return "";
  return row
    .map((v, k) => pic.label_vars[k] && (shown === "all" || shown === pic.vars[k]) ? `${pic.vars[k]}=${v}` : null)
    .filter((t) => t !== null)
    .join(" ");
}

// Offers the label choices; all variables when they fit, else the first.
function setLabels(inst, rows) {
  const pic = inst.picture;
  const select = $("label-var");
  const names = pic.vars.filter((_, k) => pic.label_vars[k]);
  select.replaceChildren(...["all", ...names, "none"].map((v) => el("option", { value: v }, v)));
  const long = rows.some((row) => row.map((v, k) => pic.label_vars[k] ? pic.vars[k].length + v.length + 2 : 0)
    .reduce((a, b) => a + b, 0) > 22);
  select.value = long && names.length > 0 ? names[0] : "all";
}

// An arrowhead for lines' `marker-end`, in its own <defs>.
function arrowhead(id, color, orient) {
  const defs = svg("defs");
  const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "6", markerHeight: "6", orient });
  marker.appendChild(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: color }));
  defs.appendChild(marker);
  return defs;
}

// Where messages from `from` to `to` are drawn: on their edge, nearer the receiver.
function onEdge(from, to) {
  const [x1, y1] = place(from), [x2, y2] = place(to);
  return [x1 + (x2 - x1) * 0.62, y1 + (y2 - y1) * 0.62];
}

// A tag with `text`, centred on the group's origin.
function messageTag(text, attrs) {
  const w = 8 + text.length * 7;
  const tag = svg("g", attrs);
  tag.appendChild(svg("rect", { class: "msg", x: -w / 2, y: -10, width: w, height: 18, rx: 4 }));
  tag.appendChild(svg("text", { x: 0, y: 3, "text-anchor": "middle", "font-size": 11 }, text));
  return tag;
}

function drawGraph() {
  const g = $("graph");
  const pic = instance.picture;
  const r = radius();
  const parts = [];
  parts.push(arrowhead("head", "#1565c0", "auto-start-reverse"));
  for (const [a, b] of pic.edges) {
    const [x1, y1] = place(a), [x2, y2] = place(b);
    parts.push(svg("line", { class: "edge", x1, y1, x2, y2 }));
  }
  for (const [a, b] of state.arrows) {
    const [x1, y1] = place(a), [x2, y2] = place(b);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
    parts.push(svg("line", { class: "arrow", x1: x1 + ux * r, y1: y1 + uy * r, x2: x2 - ux * (r + 3), y2: y2 - uy * (r + 3) }));
  }
  const enabled = new Set(state.enabled);
  const moved = new Set(state.last_movers);
  for (let p = 0; p < pic.n; p++) {
    const [x, y] = place(p);
    const cls = ["proc"];
    if (enabled.has(p)) cls.push("enabled");
    if (moved.has(p)) cls.push("moved");
    if (picked.has(p)) cls.push("picked");
    const node = svg("g", { class: cls.join(" "), "data-p": p });
    node.appendChild(svg("circle", { cx: x, cy: y, r }));
    if (pic.n <= 200) {
      node.appendChild(svg("text", { x, y: y + 4, "text-anchor": "middle", "font-size": Math.max(9, r * 0.6) }, String(pic.ids[p])));
      node.appendChild(svg("text", { x, y: y + r + 14, "text-anchor": "middle", "font-size": 13 }, labelOf(p)));
    }
    const title = svg("title", {}, `process ${p}: ` + state.rows[p].map((v, k) => pic.vars[k] + " = " + v).join(", "));
    node.appendChild(title);
    node.addEventListener("click", () => clickProcess(p));
    parts.push(node);
  }
  // Messages in transit on their edges, the next to arrive nearest its receiver.
  for (const [from, to, msgs] of state.channels) {
    const [mx, my] = onEdge(from, to);
    const text = msgs.length > 3 ? msgs.slice(0, 3).join(" ") + ` +${msgs.length - 3}` : msgs.join(" ");
    parts.push(messageTag(text, { transform: `translate(${mx} ${my})` }));
  }
  // The messages the last step took move from their edges to their receivers.
  const last = state.path[state.here];
  if (last && state.here > 0) {
    for (const [from, to, text, sent] of last.messages) {
      if (sent) continue;
      const [sx, sy] = onEdge(from, to), [x2, y2] = place(to);
      const tag = messageTag(text, { class: "delivered" });
      tag.appendChild(svg("animateTransform", { attributeName: "transform", type: "translate", from: `${sx} ${sy}`, to: `${x2} ${y2}`, dur: "0.7s", fill: "freeze" }));
      tag.appendChild(svg("animate", { attributeName: "opacity", from: "1", to: "0", begin: "0.5s", dur: "0.3s", fill: "freeze" }));
      parts.push(tag);
    }
  }
  g.replaceChildren(...parts);
}

function drawValues(previous) {
  const pic = instance.picture;
  const head = el("tr");
  head.appendChild(el("th", {}, "process"));
  for (const v of pic.vars) head.appendChild(el("th", {}, v));
  const rows = [head];
  const enabled = new Set(state.enabled);
  const shown = Math.min(pic.n, 300);
  for (let p = 0; p < shown; p++) {
    const tr = el("tr", enabled.has(p) ? { class: "enabled" } : {});
    tr.appendChild(el("td", {}, String(p) + (enabled.has(p) ? " *" : "")));
    state.rows[p].forEach((v, k) => {
      const changed = previous && previous.rows[p] && previous.rows[p][k] !== v;
      tr.appendChild(el("td", changed ? { class: "changed" } : {}, v));
    });
    rows.push(tr);
  }
  $("values").replaceChildren(...rows);
}

function several() {
  return state.daemon !== "central";
}

function drawMoves() {
  const list = $("moves");
  const items = [];
  if (state.ticks) {
    $("move-help").textContent = "the program runs in ticks: every process handles its timers and messages at once";
    const li = el("li");
    const b = el("button", { class: "move", "data-text": "tick" }, "tick");
    b.addEventListener("click", () => act("daemon_step"));
    li.appendChild(b);
    items.push(li);
  } else if (state.moves.length === 0) {
    $("move-help").textContent = "silent: no process is enabled";
  } else {
    $("move-help").textContent = several()
      ? `${state.daemon}: choose a move for each process that moves (click processes), then take the step`
      : "central: click a move, or an enabled process";
  }
  for (const m of state.moves) {
    const li = el("li", { "data-p": m.process });
    if (picked.get(m.process) === m.text) li.classList.add("picked");
    if (several()) {
      const box = el("input", { type: "checkbox", class: "pick", "data-text": m.text });
      box.checked = picked.get(m.process) === m.text;
      box.addEventListener("change", () => {
        if (box.checked) picked.set(m.process, m.text);
        else picked.delete(m.process);
        drawMoves();
        drawGraph();
      });
      li.appendChild(box);
      li.appendChild(el("code", {}, m.text));
    } else {
      const b = el("button", { class: "move", "data-text": m.text }, m.text);
      b.addEventListener("click", () => take(m.text));
      li.appendChild(b);
    }
    // An error, or a message taken or sent, comes as its text.
    const changes = m.changes.map((c) => typeof c[0] === "string" ? c[1] : `${c[0]}.${c[1]} ${c[2]} → ${c[3]}`).join(", ");
    li.appendChild(el("span", { class: "change" }, changes));
    items.push(li);
  }
  list.replaceChildren(...items);
  $("take").hidden = !several() || state.ticks;
  $("take").disabled = picked.size === 0;
}

function drawPath() {
  const items = state.path.map((s, i) => {
    const li = el("li", { "data-node": s.node }, i === 0 ? "start" : s.text);
    if (s.node === state.node) li.classList.add("here");
    if (i > state.here) li.classList.add("ahead");
    li.addEventListener("click", () => act("goto", { node: s.node }));
    return li;
  });
  $("path").replaceChildren(...items);
  // The tree, each node under its parent.
  const children = new Map();
  for (const n of state.tree) {
    if (n.parent === null) continue;
    if (!children.has(n.parent)) children.set(n.parent, []);
    children.get(n.parent).push(n);
  }
  const build = (id, text) => {
    const li = el("li");
    const span = el("span", { "data-node": id }, text);
    if (id === state.node) span.classList.add("here");
    span.addEventListener("click", () => act("goto", { node: id }));
    li.appendChild(span);
    const kids = children.get(id) || [];
    if (kids.length) {
      const ul = el("ul");
      for (const k of kids) ul.appendChild(build(k.node, k.text));
      li.appendChild(ul);
    }
    return li;
  };
  $("tree").replaceChildren(build(0, "start"));
}

// The messages sent and taken along the path, as a message sequence chart:
// a lifeline per process that sends or takes one, a row per step; a taken
// message is matched to the oldest one sent on its channel (channels are
// FIFO), and one in transit at the start comes from above the first row.
function drawChart() {
  const box = $("chart-box");
  box.hidden = !instance.has_messages;
  if (box.hidden) return;
  const MOST_ROWS = 60;
  const first = Math.max(0, state.path.length - MOST_ROWS);
  const steps = state.path.slice(first);
  const procs = new Set();
  for (const s of steps) for (const [a, b] of s.messages) { procs.add(a); procs.add(b); }
  const lanes = [...procs].sort((a, b) => a - b).slice(0, 40);
  const x = new Map(lanes.map((p, i) => [p, 60 + i * 100]));
  const rowY = (k) => 40 + k * 34;
  const width = 120 + lanes.length * 100, height = rowY(steps.length) + 20;
  const chart = $("chart");
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  chart.setAttribute("width", width);
  chart.setAttribute("height", height);
  const parts = [];
  parts.push(arrowhead("msghead", "#e65100", "auto"));
  steps.forEach((s, k) => {
    const here = first + k === state.here;
    parts.push(svg("rect", { class: "row" + (here ? " here" : ""), x: 0, y: rowY(k) - 17, width, height: 34 }));
    parts.push(svg("text", { x: 4, y: rowY(k) + 4, "font-size": 10 }, k + first === 0 ? "start" : String(first + k)));
  });
  for (const p of lanes) {
    parts.push(svg("text", { x: x.get(p), y: 14, "text-anchor": "middle", "font-size": 12 }, String(p)));
    parts.push(svg("line", { class: "life", x1: x.get(p), y1: 20, x2: x.get(p), y2: height }));
  }
  const pending = new Map();
  const label = (x1, y, text) => parts.push(svg("text", { x: x1, y, "text-anchor": "middle", "font-size": 10 }, text));
  const arrow = (a, y1, b, y2, text) => {
    const line = svg("line", { class: "send", x1: x.get(a), y1, x2: x.get(b), y2 });
    line.appendChild(svg("title", {}, `${a} → ${b}: ${text}`));
    parts.push(line);
    // Near the sender, where arrows of one step part.
    label(x.get(a) + (x.get(b) - x.get(a)) * 0.3, y1 + (y2 - y1) * 0.3 - 3, text);
  };
  // A message whose other end is off the chart: a short stub towards it.
  const stub = (from, to, y, text, arriving) => {
    const dir = x.get(to) >= x.get(from) ? 1 : -1;
    const [x1, y1, x2, y2] = arriving
      ? [x.get(to) - dir * 22, y - 10, x.get(to), y]
      : [x.get(from), y, x.get(from) + dir * 22, y + 10];
    parts.push(svg("line", { class: "send open", x1, y1, x2, y2 }));
    label(arriving ? x1 : x2, arriving ? y1 - 2 : y2 + 10, text);
  };
  const known = (a, b) => x.has(a) && x.has(b);
  steps.forEach((s, k) => {
    for (const [a, b, text, sent] of s.messages) {
      if (!known(a, b)) continue;
      const key = `${a}>${b}`;
      if (sent) {
        if (!pending.has(key)) pending.set(key, []);
        pending.get(key).push(rowY(k));
      } else {
        const from = (pending.get(key) || []).shift();
        if (from === undefined) stub(a, b, rowY(k), text, true);
        else arrow(a, from, b, rowY(k), text);
      }
    }
  });
  // Sent and not yet taken: still in transit at the path's end.
  steps.forEach((s, k) => {
    for (const [a, b, text, sent] of s.messages) {
      const left = sent && known(a, b) ? pending.get(`${a}>${b}`) : null;
      if (left && left[0] === rowY(k)) {
        left.shift();
        stub(a, b, rowY(k), text, false);
      }
    }
  });
  chart.replaceChildren(...parts);
}

async function drawWatches() {
  const items = [];
  for (const w of watches) {
    let value;
    try {
      value = (await call("eval", { expr: w })).value;
    } catch (e) {
      value = "error: " + e.message;
    }
    const li = el("li", { class: "watch" }, `${w} = ${value}`);
    const x = el("button", {}, "×");
    x.addEventListener("click", () => { watches = watches.filter((v) => v !== w); drawWatches(); });
    li.appendChild(x);
    items.push(li);
  }
  $("watches").replaceChildren(...items);
  $("breaks").replaceChildren(...breaks.map((b) => {
    const li = el("li", { class: "break" }, `break when ${b}`);
    const x = el("button", {}, "×");
    x.addEventListener("click", () => { breaks = breaks.filter((v) => v !== b); drawWatches(); });
    li.appendChild(x);
    return li;
  }));
}

async function show(next) {
  const previous = state;
  state = next;
  // An explanation is of the configuration it was asked in.
  $("why").hidden = true;
  // Choices made for several movers stay while they are still moves.
  const texts = new Set(state.moves.map((m) => m.text));
  for (const [p, t] of [...picked]) if (!texts.has(t)) picked.delete(p);
  if (state.daemon === "synchronous" && picked.size === 0) {
    for (const m of state.moves) if (!picked.has(m.process)) picked.set(m.process, m.text);
  }
  $("measures").textContent = `step ${state.step} · moves ${state.moves_taken} · round ${state.round} · ${state.enabled.length} enabled`;
  const legit = $("legit");
  if (!instance.has_legitimacy) {
    legit.textContent = "no legitimate: declared";
    legit.className = "badge";
  } else {
    legit.textContent = state.legitimate ? "legitimate" : "not legitimate";
    legit.className = "badge " + (state.legitimate ? "good" : "bad");
  }
  $("reports").textContent = state.reports.map(([name, value]) => `${name} = ${value}`).join(" · ");
  const inv = $("invariant");
  inv.hidden = !state.invariant;
  inv.textContent = state.invariant ? `invariant ${state.invariant} does not hold` : "";
  $("daemon").value = state.daemon;
  $("back").disabled = state.here === 0;
  $("forward").disabled = state.here + 1 >= state.path.length;
  drawGraph();
  drawValues(previous);
  drawMoves();
  drawPath();
  drawChart();
  await drawWatches();
}

async function take(text) {
  say("");
  // Choices are for the configuration at hand: after the step they go
  // (the synchronous daemon's are made again), unless it is refused.
  const before = new Map(picked);
  picked.clear();
  if (!(await act("step", { line: text }))) {
    picked = before;
    drawMoves();
    drawGraph();
  }
}

async function clickProcess(p) {
  const mine = state.moves.filter((m) => m.process === p);
  if (mine.length === 0) {
    if (state.ticks) {
      say("the program runs in ticks: take a tick");
      return;
    }
    say(`process ${p} is not enabled: why is under the moves`);
    await explain(p);
    return;
  }
  if (several()) {
    if (picked.has(p)) picked.delete(p);
    else picked.set(p, mine[0].text);
    drawMoves();
    drawGraph();
    return;
  }
  if (mine.length === 1) {
    take(mine[0].text);
    return;
  }
  // Several moves: show them and let the user choose.
  say(`process ${p} may make ${mine.length} moves: choose one`);
  for (const li of $("moves").children) li.classList.toggle("focus", li.dataset.p === String(p));
  const first = [...$("moves").children].find((li) => li.dataset.p === String(p));
  if (first) first.scrollIntoView({ block: "nearest" });
}

// Why process `p` cannot move, guard by guard, as the REPL's `fire P` says.
async function explain(p) {
  const asked = state.node;
  try {
    const answer = await call("why", { process: p });
    // A step taken meanwhile makes it an answer about another configuration.
    if (state.node !== asked) return;
    $("why").textContent = `process ${p} is not enabled:\n` + answer.text;
    $("why").hidden = false;
  } catch (e) {
    say(e.message, true);
  }
}

async function back() {
  if (state.here > 0) await act("goto", { node: state.path[state.here - 1].node });
}

async function forward() {
  if (state.here + 1 < state.path.length) await act("goto", { node: state.path[state.here + 1].node });
}

async function run() {
  const steps = parseInt($("run-steps").value, 10) || 1;
  const until = $("run-until").value.trim();
  const answer = await act("run", { steps, until: until || null, breaks });
  if (answer) say(`ran ${answer.taken} step${answer.taken === 1 ? "" : "s"}: stopped (${answer.stopped})`);
}

async function save() {
  try {
    const answer = await call("save");
    const link = (id, text) => {
      const a = $(id);
      if (a.href) URL.revokeObjectURL(a.href);
      a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    };
    link("save-init", answer.init);
    link("save-sched", answer.sched);
    $("replay").textContent = `guarded run ${instance.program} --init path.init --daemon schedule:path.sched`;
    $("saved").hidden = false;
  } catch (e) {
    say(e.message, true);
  }
}

async function evaluate() {
  const expr = $("eval-input").value;
  try {
    $("eval-out").textContent = `${expr} = ${(await call("eval", { expr })).value}`;
  } catch (e) {
    $("eval-out").textContent = e.message;
  }
}

// The text the exploration runs, and the pending re-check of an edit.
let checkedText = null;
let editTimer = null;

async function reload() {
  const source = $("editor").value;
  if (source === checkedText) return;
  checkedText = source;
  try {
    const answer = await call("program", { source });
    $("diagnostics").textContent = "";
    picked.clear();
    setInstance(answer.instance);
    setLabels(answer.instance, answer.state.rows);
    await show(answer.state);
    say("the program checks: the exploration starts again from it");
  } catch (e) {
    $("diagnostics").textContent = e.message;
  }
}

async function verify() {
  $("verify-out").textContent = "";
  $("witnesses").replaceChildren();
  try {
    await call("verify");
  } catch (e) {
    $("verify-status").textContent = e.message;
    return;
  }
  clearInterval(polling);
  polling = setInterval(async () => {
    let status;
    try {
      status = await call("verify_status");
    } catch (e) {
      clearInterval(polling);
      $("verify-status").textContent = e.message;
      return;
    }
    if (status.running) {
      $("verify-status").textContent = `verifying… ${status.seconds.toFixed(1)} s`;
      return;
    }
    clearInterval(polling);
    $("verify-status").textContent = `done in ${status.seconds.toFixed(1)} s (exit ${status.exit})`;
    $("verify-out").textContent = status.output;
    $("witnesses").replaceChildren(...status.witnesses.map((w) => {
      const li = el("li");
      const b = el("button", { class: "witness", "data-name": w }, `open ${w}`);
      b.addEventListener("click", async () => {
        picked.clear();
        if (await act("open", { witness: w })) say(`opened ${w}: its path is the tree now`);
      });
      li.appendChild(b);
      return li;
    }));
  }, 300);
}

function wire() {
  $("back").addEventListener("click", back);
  $("forward").addEventListener("click", forward);
  $("daemon-step").addEventListener("click", () => act("daemon_step"));
  $("run").addEventListener("click", run);
  $("save").addEventListener("click", save);
  $("take").addEventListener("click", async () => {
    const line = [...picked.values()].join(" ");
    await take(line);
  });
  $("daemon").addEventListener("change", () => { picked.clear(); act("daemon", { daemon: $("daemon").value }); });
  $("eval-go").addEventListener("click", evaluate);
  $("eval-input").addEventListener("keydown", (e) => { if (e.key === "Enter") evaluate(); });
  $("watch-add").addEventListener("click", () => {
    const w = $("eval-input").value.trim();
    if (w && !watches.includes(w)) watches.push(w);
    drawWatches();
  });
  $("break-add").addEventListener("click", () => {
    const b = $("eval-input").value.trim();
    if (b && !breaks.includes(b)) breaks.push(b);
    drawWatches();
  });
  $("reload").addEventListener("click", () => { checkedText = null; reload(); });
  // An edit is checked once typing pauses; a program that checks reloads.
  $("editor").addEventListener("input", () => {
    clearTimeout(editTimer);
    editTimer = setTimeout(reload, 700);
  });
  $("label-var").addEventListener("change", drawGraph);
  $("verify").addEventListener("click", verify);
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
    if (typing) return;
    if (e.key === "ArrowLeft" || e.key === "b") back();
    if (e.key === "ArrowRight" || e.key === "f") forward();
    if (e.key === "n") act("daemon_step");
  });
}

async function start() {
  wire();
  try {
    const response = await fetch("/api/session", { method: "POST", body: "{}" });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error);
    session = answer.session;
    setInstance(answer.instance);
    setLabels(answer.instance, answer.state.rows);
    await show(answer.state);
    document.body.dataset.ready = "true";
  } catch (e) {
    say("cannot start: " + e.message, true);
  }
}

start();
