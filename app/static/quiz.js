// proofdeck quiz: Space reveals, 1-4 grade, Enter submits a typed drill answer; z / Ctrl+Z undoes the last
// answer, - buries the item until tomorrow, @ suspends it, h shows its history. In a drill's answer box the
// keys an answer never holds still act (- and @, Esc leaves the box, Enter submits); digits, letters (units)
// and spaces are typed.
// Every answer is POSTed with an idempotency key made once per showing and retried on network errors,
// so a review is never lost and never counted twice.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const KIND = { card: "卡片 card", followup: "追问 follow-up", pitfall: "陷阱 pitfall", drill: "计算 drill",
                 misconception: "纠错 misconception" };
  let current = null, shownAt = 0, idemKey = "", revealed = false, busy = false, answered = false;
  let chainQueue = [], wrongLog = null;
  // Study session (/quiz/study?q= or ?cards=): the matched cards' items, walked here; no answer is sent, so
  // their schedule is left as it was.
  const studyMode = Boolean($("study")), studyCards = studyMode ? $("study").dataset.cards : "";
  let studyItems = null;

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const a = new Uint8Array(16); crypto.getRandomValues(a);
    return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function face(el, f) {
    el.textContent = "";
    if (!f) return;
    for (const lang of ["zh", "en"]) {
      if (!f[lang]) continue;
      const div = document.createElement("div");
      div.className = lang; div.lang = lang === "zh" ? "zh-CN" : "en";
      div.innerHTML = f[lang];  // server-rendered through render_markdown (safe HTML + MathML)
      el.appendChild(div);
    }
  }
  function status(text) { $("status").textContent = text || ""; }
  // Text in the learner's language (the zh / en / both toggle)
  function say(zh, en) {
    const lang = document.body.dataset.lang;
    return lang === "zh" ? zh : lang === "en" ? en : zh + " " + en;
  }
  // An error detail: the server words typed-answer errors on two lines, English then Chinese
  function detail(r) {
    const d = r.data.detail;
    if (typeof d !== "string") return say("出错了", "error") + " " + r.status;
    const lines = d.split("\n");
    return lines.length === 2 ? say(lines[1], lines[0]) : d;
  }
  function setDue(n) { const el = $("due-left"); el.textContent = String(n); el.dataset.count = String(n); }
  // New / learning / review left today: the server's counts (the same as /quiz/stats and /api/review/stats)
  function setCounts(c) {
    $("counts").hidden = !c;
    if (!c) return;
    for (const [id, n] of [["count-new", c.new], ["count-learning", c.learning], ["count-review", c.review]]) {
      $(id).textContent = String(n);
    }
  }

  async function send(method, url, body, key) {
    const headers = { "Content-Type": "application/json", "Accept": "application/json" };
    if (key) headers["Idempotency-Key"] = key;
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetch(url, { method, headers, credentials: "same-origin",
                                     body: body === undefined ? undefined : JSON.stringify(body) });
        if (r.status === 401) { location.href = "/login?next=/quiz"; throw new Error("signed out"); }
        if (r.status >= 500 && attempt < 6) throw new TypeError("server error " + r.status);
        const data = await r.json().catch(() => ({}));
        return { ok: r.ok, status: r.status, data };
      } catch (e) {
        if (!(e instanceof TypeError) || attempt >= 6) throw e;
        status("网络错误，重试中… Network error, retrying…");
        await new Promise((res) => setTimeout(res, 400 * 2 ** attempt));
      }
    }
  }

  function show(item) {
    current = item; revealed = false; answered = false; idemKey = newKey(); shownAt = performance.now();
    $("done").hidden = true; $("quiz").hidden = false;
    $("kind").textContent = KIND[item.kind] || item.kind;
    const c = item.card; $("card-title").textContent = [c.title_zh, c.title_en].filter(Boolean).join(" · ");
    $("card-title").href = "/cards/" + encodeURIComponent(c.slug);
    wrongLog = null; $("self-grade-note").hidden = true;
    $("item-history").hidden = true; $("history").setAttribute("aria-expanded", "false");
    for (const s of document.querySelectorAll("#grades .ivl")) s.textContent = "";
    if (!item.study) loadIntervals(item);
    face($("front"), item.front); face($("back"), item.back);
    $("back").hidden = true; $("grades").hidden = true; $("verdict").hidden = true; $("continue-row").hidden = true;
    $("typed-form").hidden = !item.typed; $("reveal-row").hidden = item.typed; $("study-row").hidden = true;
    status("");
    if (item.typed) {
      const i = $("typed-answer"); i.value = ""; i.disabled = false; i.focus();
      document.querySelectorAll("#typed-form .unit").forEach((u) => { u.textContent = item.unit || "GB"; });
    }
    else $("reveal").focus();
  }

  async function loadStudy() {
    if (studyItems === null && !studyCards) studyItems = [];
    if (studyItems === null) {
      const r = await send("GET", "/api/match/study?cards=" + encodeURIComponent(studyCards));
      if (!r.ok) { status(typeof r.data.detail === "string" ? r.data.detail : "error " + r.status); return; }
      studyItems = r.data.items;
    }
    setDue(studyItems.length); setCounts(null);
    if (studyItems.length) { show(studyItems.shift()); return; }
    current = null; $("quiz").hidden = true; $("done").hidden = false;
    $("next-due").textContent = "学习完成，复习计划未改变 Study session done; your schedule is unchanged.";
  }

  // The header's counts without the next item (GET /api/review/next brings them otherwise): inside a
  // follow-up chain and after a drill's answer, so they are never a step behind
  // It is not awaited: a grade pressed while it is on its way is not dropped, and an answer that was
  // older than the newest request for counts never overwrites them
  let countsAsked = 0;
  async function refreshCounts() {
    const asked = ++countsAsked;
    const r = await send("GET", "/api/review/counts").catch(() => null);
    if (r && r.ok && asked === countsAsked) { setDue(r.data.total); setCounts(r.data); }
  }

  let loading = false;
  async function load() {
    if (loading) return;
    if (studyMode) { await loadStudy(); return; }
    if (chainQueue.length) { show(chainQueue.shift()); refreshCounts(); return; }
    loading = true;
    let r;
    const asked = ++countsAsked;
    try { r = await send("GET", "/api/review/next"); } finally { loading = false; }
    if (!r.ok) { status(r.data.detail || "error " + r.status); return; }
    if (asked === countsAsked) {  // else a later count is on its way or has landed
      setDue(r.data.counts ? r.data.counts.total : r.data.due_left); setCounts(r.data.counts);
    }
    if (r.data.item) { show(r.data.item); return; }
    current = null; $("quiz").hidden = true; $("done").hidden = false;
    $("next-due").textContent = r.data.next_due
      ? "下一项到期 Next item due: " + new Date(r.data.next_due).toLocaleString()
      : "没有待复习的内容 Nothing scheduled yet.";
  }

  function reveal() {
    if (!current || current.typed || revealed) return;
    revealed = true; $("back").hidden = false; $("reveal-row").hidden = true;
    if (current.study) { answered = true; $("study-row").hidden = false; $("study-next").focus(); return; }
    $("grades").hidden = false;
    $("grades").querySelector("button[data-rating='3']").focus();
  }

  // The interval each grade would give, on its button (the fsrs scheduler's preview, asked for in the
  // background while the learner reads the front)
  async function loadIntervals(item) {
    const r = await send("GET", "/api/review/items/" + item.id + "/intervals");
    if (!r.ok || current !== item) return;
    for (const i of r.data.intervals) {
      const s = document.querySelector('#grades .ivl[data-ivl="' + i.rating + '"]');
      if (s) s.textContent = i.label;
    }
    $("grades").dataset.summary = r.data.summary;
  }

  async function undo() {
    if (busy || studyMode) return;
    busy = true;
    try {
      const key = newKey();
      const r = await send("POST", "/api/review/undo", { idempotency_key: key }, key);
      if (!r.ok) { status(r.status === 409 ? say("没有可撤销的答案", "Nothing to undo") : detail(r)); return; }
      chainQueue = []; $("chain").hidden = true;
      busy = false;
      await load();
      status(say("已撤销上一个答案", "Undid the last answer"));
    } finally { busy = false; }
  }

  async function hold(kind) {
    if (busy || !current || studyMode) return;
    busy = true;
    const item = current;
    try {
      const r = await send("POST", "/api/review/items/" + item.id + "/" + kind, {});
      if (!r.ok) { status(detail(r)); return; }
      chainQueue = chainQueue.filter((i) => i.id !== item.id);
      busy = false;
      await load();
      status(kind === "bury" ? say("已搁置到明天", "Buried until tomorrow")
                             : say("已暂停（在“已搁置/暂停”中恢复）", "Suspended (resume it under Buried & suspended)"));
    } finally { busy = false; }
  }

  async function toggleHistory() {
    if (!current || current.study) return;
    const box = $("item-history");
    if (!box.hidden) { box.hidden = true; $("history").setAttribute("aria-expanded", "false"); return; }
    const r = await send("GET", "/api/review/items/" + current.id + "/log");
    if (!r.ok) { status(detail(r)); return; }
    const list = $("history-list"); list.textContent = "";
    const names = { 1: say("重来", "Again"), 2: say("困难", "Hard"), 3: say("良好", "Good"), 4: say("简单", "Easy") };
    for (const l of r.data.data) {
      const li = document.createElement("li");
      li.textContent = new Date(l.reviewed_at).toLocaleString() + " · " + (names[l.rating] || l.rating)
        + (l.typed_answer !== null ? " · " + say("输入 ", "typed ") + l.typed_answer : "")
        + (l.state_after && l.state_after.due ? " → " + say("下次 ", "next ") + new Date(l.state_after.due).toLocaleString() : "");
      list.appendChild(li);
    }
    if (!r.data.data.length) { const li = document.createElement("li"); li.textContent = say("还没有记录", "No reviews yet"); list.appendChild(li); }
    box.hidden = false; $("history").setAttribute("aria-expanded", "true");
  }

  // After a wrong typed answer: keep Again (Continue, 1) or grade it yourself (2-4, a slip)
  async function regrade(rating) {
    if (busy || wrongLog === null) return;
    if (rating === 1) { wrongLog = null; await load(); return; }
    busy = true;
    try {
      const r = await send("POST", "/api/review/regrade", { log_id: wrongLog, rating });
      if (!r.ok) { status(detail(r)); return; }
      wrongLog = null;
      busy = false;
      await load();
    } finally { busy = false; }
  }

  async function answer(payload) {
    if (busy || !current || answered) return;
    busy = true;
    status("");  // an error about the previous attempt is stale now
    const item = current;
    try {
      const body = Object.assign({ item_id: item.id, duration_ms: Math.round(performance.now() - shownAt),
                                   idempotency_key: idemKey }, payload);
      const r = await send("POST", "/api/review", body, idemKey);
      if (!r.ok) { status(detail(r)); return; }
      answered = true;
      setDue(Math.max(0, Number($("due-left").dataset.count || 1) - 1));  // the next GET brings the exact count
      if (item.kind === "card") await loadChain(item);
      if (item.typed) { showDrillResult(r.data); refreshCounts(); return; }
      await load();
    } catch (e) {
      status("未能保存，请重试 Could not save; press the key again. (" + e.message + ")");
    } finally { busy = false; }
  }

  function showDrillResult(d) {
    const v = $("verdict"); v.hidden = false;
    v.className = "verdict " + (d.correct ? "ok" : "bad");
    const exp = Number(d.expected).toPrecision(4);
    const unit = d.unit || "GB";
    const given = " · " + say("你的答案 ", "you typed ") + d.given + " " + unit
      + (d.unit_note ? " · " + say(d.unit_note.zh, d.unit_note.en) : "");  // "you wrote TB; 28.06 TB is 28,060 GB"
    v.textContent = (d.correct ? "✓ " + say("正确", "Correct") + " (" + exp + " " + unit + ")"
                               : "✗ " + say("不对，应为 ", "Not quite: expected ") + exp + " " + unit) + given;
    face($("back"), d.solution); $("back").hidden = false;
    $("typed-answer").disabled = true; $("typed-form").hidden = true; $("continue-row").hidden = false;
    $("continue").focus();
    if (!d.correct) {  // a slip? the learner may grade it themselves; Again stays unless they do
      wrongLog = d.log_id; $("self-grade-note").hidden = false; $("grades").hidden = false;
      $("grades").querySelector("button[data-rating='1']").focus();
    }
  }

  async function loadChain(item) {
    const r = await send("GET", "/api/review/chain/" + item.id);
    if (!r.ok) return;
    const links = $("links"); links.textContent = "";
    for (const l of r.data.links) {
      const li = document.createElement("li");
      const text = [l.title_zh, l.title_en].filter(Boolean).join(" · ") || l.slug;
      if (l.url) { const a = document.createElement("a"); a.href = l.url; a.textContent = text; li.appendChild(a); }
      else { li.textContent = text + " (不在题库 not in the deck yet)"; }
      links.appendChild(li);
    }
    chainQueue = r.data.followups.slice();
    const buried = r.data.buried || 0;
    $("chain-note").textContent = chainQueue.length
      ? "接下来 " + chainQueue.length + " 个追问 · Next: " + chainQueue.length + " follow-up question(s) of this card."
      : buried ? "本卡的 " + buried + " 个追问明天再问（同卡项目已搁置）· This card's " + buried
                 + " follow-up(s) wait for another day (siblings are buried)."
      : "本卡没有待复习的追问 · No follow-ups of this card are due.";
    $("links-title").hidden = !r.data.links.length;
    $("chain").hidden = !(chainQueue.length || buried || r.data.links.length);
  }

  // A key pressed in the drill's answer box: true when the quiz acted on it (it is not typed)
  function answerBoxKey(ev, box) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) {
      if (!box.value && (ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "z") { undo(); return true; }
      return false;  // the box's own editing keys (Ctrl+Z undoes typing, Ctrl+A selects)
    }
    if (ev.key === "Escape") { box.blur(); $("quiz").focus(); return true; }
    if (ev.key === "@") { hold("suspend"); return true; }
    // "-" is typed only as an exponent's sign (2.8e-2); an answer is never negative
    if (ev.key === "-" && !/\d[eE]$/.test(box.value.slice(0, box.selectionStart ?? box.value.length))) {
      hold("bury"); return true;
    }
    return false;  // Enter submits the form; digits, units and spaces are the answer
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.target === $("typed-answer")) {
      if (answerBoxKey(ev, ev.target)) ev.preventDefault();
      return;
    }
    if (ev.target instanceof HTMLInputElement && ev.target.type !== "radio") return;  // the paste box
    if (ev.key === "Enter" && (ev.target === document.body || ev.target === $("quiz")) && current && current.typed
        && !answered && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault(); $("typed-answer").focus(); return;  // back into the box left with Esc
    }
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === "z") { ev.preventDefault(); undo(); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "z") { ev.preventDefault(); undo(); return; }
    if (ev.key === "-") { ev.preventDefault(); hold("bury"); return; }
    if (ev.key === "@") { ev.preventDefault(); hold("suspend"); return; }
    if (ev.key === "h") { ev.preventDefault(); toggleHistory(); return; }
    if (wrongLog !== null && ["1", "2", "3", "4"].includes(ev.key)) { ev.preventDefault(); regrade(Number(ev.key)); return; }
    if (ev.key === " ") {
      if (!current) return;
      ev.preventDefault();
      if (answered && (current.typed || current.study)) { load(); return; }
      reveal();
    } else if (["1", "2", "3", "4"].includes(ev.key) && revealed && !answered) {
      ev.preventDefault(); answer({ rating: Number(ev.key) });
    }
  });
  $("reveal").addEventListener("click", reveal);
  $("continue").addEventListener("click", () => load());
  $("study-next").addEventListener("click", () => load());
  for (const b of document.querySelectorAll("#grades button")) {
    b.addEventListener("click", () => (wrongLog !== null ? regrade(Number(b.dataset.rating))
                                                         : answer({ rating: Number(b.dataset.rating) })));
  }
  $("undo").addEventListener("click", undo);
  $("undo-done").addEventListener("click", undo);
  $("bury").addEventListener("click", () => hold("bury"));
  $("suspend").addEventListener("click", () => hold("suspend"));
  $("history").addEventListener("click", toggleHistory);
  if (!studyMode) { $("undo").disabled = false; $("undo-done").disabled = false; }
  else { for (const id of ["bury", "suspend", "history"]) $(id).hidden = true; $("undo").hidden = true; }
  $("typed-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const v = $("typed-answer").value.trim();
    if (!v) { status(say("请输入一个数", "Type a number") + " (" + ((current && current.unit) || "GB") + ")"); return; }
    answer({ typed_answer: v, showing_id: current.showing_id });
  });
  for (const r of document.querySelectorAll("input[name=lang]")) {
    r.addEventListener("change", async () => {
      document.body.dataset.lang = r.value;
      await send("PUT", "/api/review/settings", { language: r.value });
      if (current && !answered && current.lang && current.lang !== r.value && r.value !== "both") await load();
      else if (!studyMode) { const n = await send("GET", "/api/review/next"); if (n.ok) setDue(n.data.due_left); }
    });
  }
  load();
})();
