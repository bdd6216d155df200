// toolrig console: local times, copy as JSON, live pages (runs, a run, approvals). No framework, no build step.
"use strict";
function localTimes(root) {
  const fmt = new Intl.DateTimeFormat(undefined, {dateStyle: "medium", timeStyle: "medium"});
  for (const el of root.querySelectorAll("time[datetime]")) {
    const when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when)) { el.title = el.textContent; el.textContent = fmt.format(when); }
  }
}
function epochInputs() {
  for (const input of document.querySelectorAll("input[data-epoch]")) {
    const epoch = parseFloat(input.dataset.epoch);
    if (!isNaN(epoch)) {
      const d = new Date(epoch * 1000);
      const pad = (n) => String(n).padStart(2, "0");
      input.value = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    }
  }
  const form = document.querySelector("form.filters");
  if (form && form.querySelector("input[data-epoch]")) {
    form.addEventListener("submit", () => {
      for (const input of form.querySelectorAll("input[type=datetime-local]")) {
        if (input.value) {  // the viewer's local time, sent as epoch seconds
          const hidden = document.createElement("input");
          hidden.type = "hidden"; hidden.name = input.name;
          hidden.value = String(new Date(input.value).getTime() / 1000);
          input.removeAttribute("name"); form.appendChild(hidden);
        }
      }
    });
  }
}
function copyButtons() {
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-json]");
    if (!button) return;
    try { await navigator.clipboard.writeText(button.dataset.json); button.textContent = "Copied"; }
    catch (err) { button.textContent = "Copy failed"; }
    setTimeout(() => { button.textContent = "Copy as JSON"; }, 1500);
  });
}
function follow(topic, after, extra, onChange) {
  // One EventSource per open page: "changed" when what it shows may have changed, "log" with a
  // one-line message while the log file cannot be read (empty when it can again).
  if (!window.EventSource) return null;
  const params = new URLSearchParams({topic: topic, after: after || "", ...extra});
  const source = new EventSource("/events?" + params.toString());
  const live = document.getElementById("live");
  const line = document.getElementById("logline");
  source.onopen = () => { if (live) live.hidden = false; };
  source.onerror = () => { if (live) live.hidden = true; };
  source.addEventListener("log", (event) => {
    if (line) { line.textContent = event.data; line.hidden = !event.data; }
    if (live) live.hidden = Boolean(event.data);
    if (!event.data && document.getElementById("stale")) window.location.reload();
    if (event.data) document.body.id = "stale";
  });
  source.addEventListener("changed", () => onChange());
  return source;
}
async function fetchPartial(selector) {
  const url = new URL(window.location.href);
  url.searchParams.set("partial", "1");
  const response = await fetch(url, {headers: {accept: "text/html"}});
  if (!response.ok) return null;
  const holder = document.createElement(selector === "tbody" ? "table" : "div");
  holder.innerHTML = await response.text();
  return holder;
}
async function fetchPage() {
  const response = await fetch(window.location.href, {headers: {accept: "text/html"}});
  if (!response.ok) return null;
  return new DOMParser().parseFromString(await response.text(), "text/html");
}
function liveRuns() {
  const table = document.getElementById("runs");
  if (!table || table.dataset.live !== "1") return;
  follow("runs", table.dataset.newest, {}, async () => {
    const holder = await fetchPartial("tbody");
    const body = holder && holder.querySelector("tbody");
    const old = document.getElementById("runs-body");
    if (!body || !old) return;
    const known = new Set([...old.querySelectorAll("tr")].map((tr) => tr.textContent));
    for (const tr of body.querySelectorAll("tr")) if (!known.has(tr.textContent)) tr.classList.add("new");
    old.replaceWith(body);
    localTimes(body);
  });
}
function liveRun() {
  const root = document.getElementById("run-live");
  if (!root) return;
  follow("run", root.dataset.live, {run: root.dataset.run}, async () => {
    const holder = await fetchPartial("div");
    if (!holder) return;
    const head = holder.querySelector("#run-head");
    if (head) { document.getElementById("run-head").replaceWith(head); localTimes(head); }
    const list = document.getElementById("waterfall");
    const fresh = holder.querySelector("#waterfall");
    if (!list || !fresh) return;
    const open = new Set([...list.querySelectorAll("li.span")].filter((li) => li.querySelector("details[open]")).map((li) => li.dataset.id));
    for (const li of fresh.querySelectorAll("li.span")) {
      const details = li.querySelector("details");
      if (details && open.has(li.dataset.id)) details.open = true;
      if (!list.querySelector(`li.span[data-id="${li.dataset.id}"]`)) li.classList.add("new");
    }
    list.replaceWith(fresh);
    localTimes(fresh);
  });
}
function liveInbox() {
  const inbox = document.getElementById("inbox");
  if (!inbox) return;
  follow("approvals", inbox.dataset.live, {}, async () => {
    const page = await fetchPage();
    const fresh = page && page.getElementById("inbox");
    if (!fresh) return;
    // keep the cards already shown as they are (a reason being typed stays); add the new ones
    const shown = new Map([...inbox.querySelectorAll("article.held")].map((a) => [a.dataset.key, a]));
    const cards = [];
    for (const card of fresh.children) {
      const kept = card.dataset && card.dataset.key ? shown.get(card.dataset.key) : null;
      if (!kept && card.matches("article.held")) card.classList.add("new");
      cards.push(kept || card);
    }
    inbox.replaceChildren(...cards);
    localTimes(inbox);
  });
}
function liveUnavailable() {
  const notice = document.getElementById("unavailable");
  if (!notice) return;
  document.body.id = "stale";
  follow("runs", "", {}, () => {});
}
document.addEventListener("DOMContentLoaded", () => {
  localTimes(document); epochInputs(); copyButtons();
  liveRuns(); liveRun(); liveInbox(); liveUnavailable();
});
