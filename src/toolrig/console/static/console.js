// toolrig console: local times, copy as JSON, live runs list. No framework, no build step.
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
function liveRuns() {
  const table = document.getElementById("runs");
  if (!table || table.dataset.live !== "1" || !window.EventSource) return;
  const source = new EventSource("/runs/events?after=" + encodeURIComponent(table.dataset.newest));
  const live = document.getElementById("live");
  source.onopen = () => { if (live) live.hidden = false; };
  source.onerror = () => { if (live) live.hidden = true; };
  source.addEventListener("records", async () => {
    const url = new URL(window.location.href);
    url.searchParams.set("partial", "1");
    const response = await fetch(url, {headers: {accept: "text/html"}});
    if (!response.ok) return;
    const holder = document.createElement("table");
    holder.innerHTML = await response.text();
    const body = holder.querySelector("tbody");
    const old = document.getElementById("runs-body");
    if (!body || !old) return;
    const known = new Set([...old.querySelectorAll("tr")].map((tr) => tr.textContent));
    for (const tr of body.querySelectorAll("tr")) if (!known.has(tr.textContent)) tr.classList.add("new");
    old.replaceWith(body);
    localTimes(body);
  });
}
document.addEventListener("DOMContentLoaded", () => {
  localTimes(document); epochInputs(); copyButtons(); liveRuns();
});
