// The explorer: find a belief, item, observation or journal entry and expand the graph around it,
// one click at a time, through the service's own GraphQL API (with the token given, if any).
"use strict";

const GOOD = ["accepted", "active"], FAIR = ["likely"], WEAK = ["tentative", "hypothesis", "held"];
const CONTESTED = ["contested", "disputed"], BAD = ["rejected", "refuted", "retracted", "expired", "superseded"];

function statusClass(status) {
  if (!status) return "plain";
  if (GOOD.includes(status)) return "accepted";
  if (FAIR.includes(status)) return "likely";
  if (WEAK.includes(status)) return "tentative";
  if (CONTESTED.includes(status)) return "contested";
  if (BAD.includes(status)) return "rejected";
  return "plain";
}

const COLOURS = { accepted: "#1f7a3a", likely: "#4c9a5e", tentative: "#b08a1e", contested: "#c2571a",
                  rejected: "#9b2230", plain: "#5b6577" };
const SHAPES = { Belief: "ellipse", Evidence: "round-rectangle", Family: "hexagon", Item: "round-diamond",
                 Observation: "round-triangle", Entry: "rectangle", Node: "ellipse" };

const cy = cytoscape({
  container: document.getElementById("graph"),
  wheelSensitivity: 0.3,
  style: [
    { selector: "node", style: {
        "label": "data(caption)", "font-size": 10, "text-wrap": "wrap", "text-max-width": 140,
        "text-valign": "bottom", "text-margin-y": 4, "shape": (n) => SHAPES[n.data("kind")] || "ellipse",
        "background-color": (n) => COLOURS[statusClass(n.data("status"))],
        "width": (n) => 18 + 30 * (n.data("confidence") ?? 0.4), "height": (n) => 18 + 30 * (n.data("confidence") ?? 0.4),
        "border-width": (n) => (n.data("expanded") ? 3 : 0), "border-color": "#1d2330" } },
    { selector: "edge", style: {
        "label": "data(label)", "font-size": 8, "curve-style": "bezier", "target-arrow-shape": "triangle",
        "width": 1.5, "line-color": (e) => (e.data("against") ? "#9b2230" : "#98a2b3"),
        "target-arrow-color": (e) => (e.data("against") ? "#9b2230" : "#98a2b3"),
        "line-style": (e) => (e.data("retracted") ? "dashed" : "solid") } },
  ],
});

function token() { return document.getElementById("token").value.trim(); }
function say(text) {
  document.getElementById("status").textContent = text;
  cy.resize();  // a message can move the graph's box: Cytoscape must know, or clicks miss their nodes
}

async function gql(query, variables) {
  const headers = { "content-type": "application/json", accept: "application/json" };
  if (token()) headers.authorization = `Bearer ${token()}`;
  const response = await fetch("/graphql", { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = await response.json().catch(() => ({ errors: [{ message: `HTTP ${response.status}` }] }));
  if (body.errors && body.errors.length) throw new Error(body.errors.map((e) => e.message).join("; "));
  return body.data;
}

function short(text, n = 60) { text = String(text ?? ""); return text.length > n ? text.slice(0, n - 1) + "…" : text; }

function addNode(id, kind, data = {}) {
  const existing = cy.getElementById(id);
  if (existing.nonempty()) { existing.data({ ...existing.data(), ...data }); return existing; }
  return cy.add({ group: "nodes", data: { id, kind, caption: `${kind}\n${short(id, 24)}`, ...data } });
}

function addEdge(source, target, label, extra = {}) {
  const id = `${source}|${label}|${target}`;
  if (cy.getElementById(id).empty()) cy.add({ group: "edges", data: { id, source, target, label, ...extra } });
}

const BELIEF = `query($id: String!) { belief(id: $id) { id proposition status confidence epistemicKind version
  evidence { id direction value family derivation retracted roots { id label } }
  families { id name kind liveRows } } }`;
const ITEM = `query($id: String!) { item(id: $id) { id kind summary status source by key } }`;
// One level each way: an item's neighbours, not its whole closure (which can be most of a store).
const WALK = `query($ids: [String!]!) { upstream(ids: $ids, maxDepth: 1) { id via edge item { id summary status } }
  dependents(ids: $ids, maxDepth: 1) { id via edge item { id summary status } } }`;
const OBSERVATION = `query($id: String!) { observation(id: $id) { id kind observer subject tick } }`;
const ENTRY = `query($seq: Int!) { journalEntry(seq: $seq) { seq op by hash wrote { label id } } }`;

function showDetails(data) {
  const rows = Object.entries(data).filter(([k]) => !["caption", "expanded"].includes(k))
    .map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(typeof v === "object" ? JSON.stringify(v) : String(v))}</dd>`);
  document.getElementById("details").innerHTML = `<dl>${rows.join("")}</dl>`;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

async function expandBelief(id) {
  const b = (await gql(BELIEF, { id })).belief;
  addNode(b.id, "Belief", { status: b.status, confidence: b.confidence, caption: `${short(b.proposition)}\n${b.status} ${b.confidence.toFixed(2)}`,
                            proposition: b.proposition, epistemicKind: b.epistemicKind, version: b.version });
  for (const e of b.evidence) {
    addNode(e.id, "Evidence", { status: e.retracted ? "retracted" : null, confidence: e.value, direction: e.direction,
                                caption: `${e.direction} ${e.value.toFixed(2)}\n${e.derivation}`, family: e.family });
    addEdge(e.id, b.id, "BEARS_ON", { against: e.direction === "against", retracted: e.retracted });
    addNode(`family:${e.family}`, "Family", { caption: `family\n${short(e.family, 30)}`, family: e.family });
    addEdge(e.id, `family:${e.family}`, "FROM");
    for (const r of e.roots) {
      addNode(r.id, r.label, {});
      addEdge(e.id, r.id, "ROOTED_IN");
    }
  }
}

async function expandItem(id) {
  const it = (await gql(ITEM, { id })).item;
  addNode(it.id, "Item", { status: it.status, caption: `${short(it.summary)}\n${it.status}`, summary: it.summary,
                           source: it.source, by: it.by, key: it.key });
  const walk = await gql(WALK, { ids: [id] });
  for (const step of walk.upstream) {
    const other = step.item;
    if (!other) continue;
    addNode(other.id, "Item", { status: other.status, caption: `${short(other.summary)}\n${other.status}` });
    if (step.edge === "DERIVED_FROM") addEdge(step.via, other.id, "DERIVED_FROM");
    else addEdge(step.via, other.id, step.edge);
  }
  for (const step of walk.dependents) {
    const other = step.item;
    if (!other) continue;
    addNode(other.id, "Item", { status: other.status, caption: `${short(other.summary)}\n${other.status}` });
    addEdge(other.id, step.via, "DERIVED_FROM");
  }
}

async function expandObservation(id) {
  const o = (await gql(OBSERVATION, { id })).observation;
  addNode(o.id, "Observation", { caption: `${o.kind} ${short(o.subject ?? "", 30)}\nby ${o.observer ?? "?"}`, ...o });
}

async function expandEntry(seq) {
  const e = (await gql(ENTRY, { seq })).journalEntry;
  const id = `entry:${e.seq}`;
  addNode(id, "Entry", { caption: `#${e.seq} ${e.op}\nby ${e.by}`, seq: e.seq, op: e.op, by: e.by, hash: e.hash });
  for (const w of e.wrote) {
    addNode(w.id, w.label, {});
    addEdge(id, w.id, "WROTE");
  }
}

async function expand(node) {
  const kind = node.data("kind"), id = node.id();
  say(`expanding ${id} …`);
  if (kind === "Belief") await expandBelief(id);
  else if (kind === "Item") await expandItem(id);
  else if (kind === "Observation") await expandObservation(id);
  else if (kind === "Entry") await expandEntry(node.data("seq"));
  else { say(`${kind} nodes have nothing more to show`); return; }
  cy.getElementById(id).data("expanded", true);
  cy.layout({ name: "breadthfirst", directed: true, spacingFactor: 1.1, animate: false }).run();
  say("");
  window.explorer.settled += 1;
}

async function find(text) {
  text = text.trim();
  if (!text) return;
  const attempts = /^\d+$/.test(text) ? [() => expandEntry(Number(text))]
    : [() => expandBelief(text), () => expandItem(text), () => expandObservation(text)];
  for (const attempt of attempts) {
    try {
      await attempt();
      const node = /^\d+$/.test(text) ? cy.getElementById(`entry:${text}`) : cy.getElementById(text);
      node.data("expanded", true);
      cy.layout({ name: "breadthfirst", directed: true, spacingFactor: 1.1, animate: false }).run();
      cy.center(node);
      say("");
      window.explorer.settled += 1;  // drawn and laid out: what a person (or a test) sees now
      return;
    } catch (error) {
      say(String(error.message || error));
    }
  }
}

document.getElementById("find").addEventListener("submit", (event) => {
  event.preventDefault();
  find(document.getElementById("query").value).catch((e) => say(String(e)));
});
cy.on("tap", "node", (event) => {
  const id = event.target.id();
  showDetails(event.target.data());
  expand(event.target).then(() => showDetails(cy.getElementById(id).data())).catch((e) => say(String(e.message || e)));
});

// For people and tests alike: what is drawn, as data.
window.explorer = {
  cy, find, expand: (id) => expand(cy.getElementById(id)), settled: 0,
  drawn: () => cy.nodes().map((n) => ({ id: n.id(), kind: n.data("kind"), status: n.data("status") ?? null })),
};
const start = new URLSearchParams(location.search).get("find");
if (start) { document.getElementById("query").value = start; find(start); }
