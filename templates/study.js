/* The handbook's study mode (#study): the daily review, offline. Keys as in the web quiz: Space shows the
   answer (or continues), 1-4 grade, Enter submits a typed drill, z undoes the last answer. Items are picked
   as GET /api/review/next picks them (the most overdue due item within today's review quota, else the next
   new one within today's new quota), scheduled by proofdeckFsrs (the server's FSRS on ts-fsrs) from the
   exported state, and graded by proofdeckAnswers (the server's typed-answer grading). Every answer is
   kept in localStorage (per deck, user and export) until "Export reviews" downloads them as a JSON file
   for `proofdeck import handbook-reviews` / POST /api/review/import/handbook. Card text is never parsed
   here: faces are clones of the handbook's own nodes or of inert <template>s the server rendered. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var source = $("study-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var root = document.documentElement;
  var KIND = { card: "卡片 card", followup: "追问 follow-up", pitfall: "陷阱 pitfall", drill: "计算 drill",
               misconception: "纠错 misconception" };
  var fsrs = proofdeckFsrs.make(data.scheduler);
  var items = data.items.map(function (a, i) {
    var slug = data.cards[a[0]];
    return { index: i, slug: slug, kind: a[1], key: a[2], lang: a[3], fp: a[4], extra: a[5],
             name: slug + "/" + a[1] + "/" + a[2] };
  });
  var byName = {};
  items.forEach(function (it) { byName[it.name] = it; });
  var KEY = "proofdeck-study:" + data.deck + ":" + (data.user ? data.user.id : "-") + ":" + data.export;
  var SENT = KEY + ":exported";
  var storage = null;
  try { storage = window.localStorage; storage.setItem(KEY + ":probe", "1"); storage.removeItem(KEY + ":probe"); }
  catch (e) { storage = null; }

  var reviews = [];  /* this handbook's answers, oldest first: what Export reviews writes */
  var exportedCount = 0;
  var states = {}, reps = {}, newToday = 0, reviewsToday = 0, day = "";
  var current = null, shownAt = 0, revealed = false, answered = false, lastShowing = null;

  function load() {
    reviews = []; exportedCount = 0;
    if (!storage) return;
    try {
      var saved = JSON.parse(storage.getItem(KEY) || "[]");
      if (Array.isArray(saved)) reviews = saved.filter(function (r) { return r && byName[r.item]; });
      exportedCount = Number(storage.getItem(SENT) || 0);
    } catch (e) { reviews = []; }
  }
  function save() {
    if (!storage) return;
    try { storage.setItem(KEY, JSON.stringify(reviews)); storage.setItem(SENT, String(exportedCount)); }
    catch (e) { status(say("无法保存到本地存储：请立即导出", "Could not save locally: export your reviews now")); }
  }

  function utcDay(ms) { return new Date(ms).toISOString().slice(0, 10); }
  function stateOf(a) {
    return { state: a[0], step: a[1], stability: a[2], difficulty: a[3], due: a[4], last_review: a[5],
             reps: a[6], lapses: a[7] };
  }
  /* the states: the exported ones, then every answer kept here, in order; and today's counts */
  function replay(now) {
    states = {}; reps = {};
    Object.keys(data.states).forEach(function (i) { states[i] = stateOf(data.states[i]); });
    day = utcDay(now);
    var today = data.today && data.today.day === day ? data.today : null;
    newToday = today ? today.new : 0; reviewsToday = today ? today.reviews : 0;
    reviews.forEach(function (r) {
      var it = byName[r.item], at = Date.parse(r.at), before = states[it.index] || null;
      var after = fsrs.review(before, r.rating, at);
      after.reps = (before ? before.reps : 0) + 1;
      after.lapses = (before ? before.lapses : 0) + (r.rating === 1 && before && before.state === proofdeckFsrs.REVIEW ? 1 : 0);
      states[it.index] = after;
      if (utcDay(at) === day) {
        if (!before) newToday++;
        else if (before.state === proofdeckFsrs.REVIEW) reviewsToday++;
      }
    });
  }

  function lang() { return root.getAttribute("data-lang") || "both"; }
  function say(zh, en) { var l = lang(); return l === "zh" ? zh : l === "en" ? en : zh + " " + en; }
  function matches(it) { var l = lang(); return l === "both" || !it.lang || it.lang === l; }
  function held(it, now) {
    var h = data.held[it.index];
    return h !== undefined && (h === 0 || h > now);
  }

  /* what GET /api/review/next would pick (app/review/queue.py: Queues.pick), and today's counts */
  function pick(now) {
    var reviewQuota = Math.max(0, data.prefs.reviews_per_day - reviewsToday);
    var newQuota = Math.max(0, data.prefs.new_per_day - newToday);
    var endOfDay = Date.parse(day + "T00:00:00Z") + 86400000 - 1;
    var soonest = null, learning = 0, review = 0, freshLeft = 0, first = null;
    items.forEach(function (it) {
      if (!matches(it) || held(it, now)) return;
      var s = states[it.index];
      if (!s) { freshLeft++; if (!first) first = it; return; }
      var isReview = s.state === proofdeckFsrs.REVIEW;
      if (s.due <= endOfDay) { if (isReview) review++; else learning++; }
      if (isReview && !reviewQuota) return;
      if (!soonest || s.due < soonest.due || (s.due === soonest.due && it.index < soonest.it.index)) soonest = { due: s.due, it: it };
    });
    var counts = { new: Math.min(newQuota, freshLeft), learning: learning, review: Math.min(reviewQuota, review) };
    if (soonest && soonest.due <= now) return { item: soonest.it, counts: counts };
    if (newQuota && first) return { item: first, counts: counts };
    return { item: null, next: soonest ? soonest.due : null, counts: counts };
  }

  /* faces: clones of the handbook's nodes (ids dropped) or of the server-rendered templates */
  function cloneInto(el, nodes) {
    el.textContent = "";
    nodes.forEach(function (n) {
      if (!n) return;
      var c = n.cloneNode(true);
      if (c.removeAttribute) c.removeAttribute("id");
      if (c.querySelectorAll) c.querySelectorAll("[id]").forEach(function (x) { x.removeAttribute("id"); });
      el.appendChild(c);
    });
    if (!el.childNodes.length) { var p = document.createElement("p"); p.className = "none"; p.textContent = "—"; el.appendChild(p); }
  }
  function children(node) { return node ? Array.prototype.slice.call(node.childNodes) : []; }
  function template(id) {
    var t = document.getElementById(id);
    var frag = t ? t.content : null;
    return { front: frag && frag.querySelector(".s-f"), back: frag && frag.querySelector(".s-b") };
  }
  function faces(it, showing) {
    var article = document.getElementById("card-" + it.slug);
    if (it.kind === "card") {
      return { front: [article && article.querySelector("h3")], back: [article && article.querySelector(".sec-insights")] };
    }
    if (it.kind === "followup") {
      var fu = document.getElementById("card-" + it.slug + "--" + it.key);
      var back = Array.isArray(it.extra)
        ? it.extra.map(function (key) { return article && article.querySelector(".sec-" + key); })
        : children(fu && fu.querySelector(".answer"));
      return { front: children(fu && fu.querySelector("summary")), back: back };
    }
    var t = template(it.kind === "drill" ? "sd-" + it.key + "-" + showing : "st-" + it.index);
    return { front: children(t.front), back: children(t.back) };
  }
  function title(it) {
    var h = document.querySelector("#card-" + it.slug + " h3");
    return h ? h.textContent.replace(/\s+/g, " ").trim() : it.slug;
  }

  function status(text) { $("s-status").textContent = text || ""; }
  function setCounts(c) {
    $("s-new").textContent = String(c.new); $("s-learning").textContent = String(c.learning);
    $("s-review").textContent = String(c.review);
    $("s-saved").textContent = String(reviews.length);
    $("s-unsent").textContent = String(Math.max(0, reviews.length - exportedCount));
  }

  function intervals(it) {
    var now = Date.now(), s = states[it.index] || null;
    document.querySelectorAll("#s-grades .ivl").forEach(function (span) {
      var g = Number(span.getAttribute("data-ivl"));
      span.textContent = proofdeckFsrs.label(Math.max(0, Math.round((fsrs.review(s, g, now).due - now) / 1000)));
    });
  }

  function show(it) {
    current = it; revealed = false; answered = false; shownAt = Date.now();
    var s = states[it.index];
    var n = it.kind === "drill" ? data.drills[it.key].length : 1;
    lastShowing = it.kind === "drill" ? ((s ? s.reps : 0) % n) : null;
    var f = faces(it, lastShowing);
    $("s-done").hidden = true; $("s-item").hidden = false;
    $("s-kind").textContent = KIND[it.kind] || it.kind;
    $("s-card").textContent = title(it); $("s-card").href = "#card-" + it.slug;
    cloneInto($("s-front"), f.front); cloneInto($("s-back"), f.back);
    $("s-back").hidden = true; $("s-grades").hidden = true; $("s-verdict").hidden = true;
    $("s-continue-row").hidden = true; status("");
    var typed = it.kind === "drill";
    $("s-typed").hidden = !typed; $("s-reveal-row").hidden = typed;
    if (typed) {
      var unit = data.drills[it.key][lastShowing][3];
      document.querySelectorAll("#s-typed .s-unit").forEach(function (u) { u.textContent = unit; });
      var input = $("s-answer"); input.value = ""; input.disabled = false; input.focus();
    } else {
      intervals(it);
      $("s-reveal").focus();
    }
  }

  function next() {
    var now = Date.now();
    replay(now);
    var p = pick(now);
    setCounts(p.counts);
    if (p.item) { show(p.item); return; }
    current = null; $("s-item").hidden = true; $("s-done").hidden = false;
    $("s-next").textContent = p.next
      ? say("下一项到期：", "Next item due: ") + new Date(p.next).toLocaleString()
      : say("今天没有待复习的内容", "Nothing left for today");
  }

  function reveal() {
    if (!current || current.kind === "drill" || revealed) return;
    revealed = true; $("s-back").hidden = false; $("s-reveal-row").hidden = true; $("s-grades").hidden = false;
    $("s-grades").querySelector("button[data-rating='3']").focus();
  }

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var a = new Uint8Array(16); crypto.getRandomValues(a);
    return Array.from(a, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function record(extra) {
    var now = Date.now();
    var r = { id: newId(), item: current.name, fp: current.fp, at: new Date(now).toISOString(),
              duration_ms: Math.min(86400000, Math.max(0, now - shownAt)) };
    Object.keys(extra).forEach(function (k) { r[k] = extra[k]; });
    load();  /* another tab of this handbook may have answered meanwhile */
    reviews.push(r); save();
    return r;
  }

  function grade(rating) {
    if (!current || !revealed || answered) return;
    answered = true;
    record({ rating: rating });
    next();
  }

  function submitTyped() {
    if (!current || current.kind !== "drill" || answered) return;
    var typed = $("s-answer").value.trim();
    var showing = data.drills[current.key][lastShowing];
    if (!typed) { status(say("请输入一个数", "Type a number") + " (" + showing[3] + ")"); return; }
    var result = proofdeckAnswers.grade(showing[2], typed, showing[3], data.units);
    if (result.error) { status(say(result.zh, result.en)); return; }  /* as the server's 422: not graded */
    answered = true;
    record({ rating: result.correct ? 3 : 1, typed: typed, seed: showing[0], showing: showing[1],
             correct: result.correct });
    var v = $("s-verdict"); v.hidden = false; v.className = "s-verdict " + (result.correct ? "ok" : "bad");
    var exp = Number(showing[2]).toPrecision(4), unit = showing[3];
    v.textContent = (result.correct ? "✓ " + say("正确", "Correct") + " (" + exp + " " + unit + ")"
                                    : "✗ " + say("不对，应为 ", "Not quite: expected ") + exp + " " + unit) +
                    " · " + say("你的答案 ", "you typed ") + result.given + " " + unit +
                    (result.note ? " · " + say(result.note.zh, result.note.en) : "");
    $("s-back").hidden = false; $("s-answer").disabled = true; $("s-typed").hidden = true;
    $("s-continue-row").hidden = false; $("s-continue").focus();
    replay(Date.now()); setCounts(pick(Date.now()).counts);
  }

  function undo() {
    load();
    if (!reviews.length) { status(say("没有可撤销的答案", "Nothing to undo")); return; }
    var r = reviews.pop();
    save();
    replay(Date.now());
    setCounts(pick(Date.now()).counts);
    show(byName[r.item]);
    status(say("已撤销上一个答案", "Undid the last answer"));
  }

  function download() {
    load();
    var body = { format: "proofdeck-handbook-reviews", version: data.format, deck: data.deck, export: data.export,
                 user: data.user, exported_at: data.exported_at, written_at: new Date().toISOString(),
                 reviews: reviews };
    var blob = new Blob([JSON.stringify(body, null, 1)], { type: "application/json" });
    var a = document.createElement("a");
    var stamp = body.written_at.replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    a.href = URL.createObjectURL(blob);
    a.download = "proofdeck-reviews-" + (data.user ? data.user.name.replace(/[^A-Za-z0-9_.-]/g, "_") : "anonymous") +
                 "-" + stamp + ".json";
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 10000);
    exportedCount = reviews.length; save();
    $("s-unsent").textContent = "0";
    status(say("已导出 " + reviews.length + " 条记录", "Exported " + reviews.length + " review(s)"));
  }

  function open() {
    root.classList.add("studying"); $("study").hidden = false;
    load(); next();
    if (!storage) $("s-storage").hidden = false;
  }
  function close() { root.classList.remove("studying"); $("study").hidden = true; current = null; }
  function route() { if (location.hash === "#study") open(); else if (!$("study").hidden) close(); }

  document.addEventListener("keydown", function (ev) {
    if ($("study").hidden) return;
    if (ev.target instanceof HTMLInputElement) return;  /* typing an answer (Enter submits it) */
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "z") { ev.preventDefault(); undo(); return; }
    if (ev.key === " ") {
      if (!current) return;
      ev.preventDefault();
      if (answered && current.kind === "drill") { next(); return; }
      reveal();
    } else if (["1", "2", "3", "4"].indexOf(ev.key) >= 0 && revealed && !answered) {
      ev.preventDefault(); grade(Number(ev.key));
    }
  });
  $("s-reveal").addEventListener("click", reveal);
  $("s-continue").addEventListener("click", next);
  $("s-undo").addEventListener("click", undo);
  $("s-undo-done").addEventListener("click", undo);
  document.querySelectorAll("#s-grades button").forEach(function (b) {
    b.addEventListener("click", function () { grade(Number(b.getAttribute("data-rating"))); });
  });
  $("s-submit").addEventListener("click", submitTyped);
  $("s-answer").addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); submitTyped(); }
  });
  document.querySelectorAll("[data-action=export-reviews]").forEach(function (b) { b.addEventListener("click", download); });
  document.querySelectorAll("[data-set-lang]").forEach(function (b) {
    b.addEventListener("click", function () {
      if ($("study").hidden) return;
      if (current && !answered && !matches(current)) next(); else { replay(Date.now()); setCounts(pick(Date.now()).counts); }
    });
  });
  window.addEventListener("storage", function (ev) { if (ev.key === KEY && !$("study").hidden && !current) next(); });
  window.addEventListener("hashchange", route);
  if (data.prefs.language && storage && storage.getItem("proofdeck-lang") === null) {
    var b = document.querySelector("[data-set-lang='" + data.prefs.language + "']");
    if (b) b.click();
  }
  /* what tests (and a curious user's console) can ask: the scheduler, the grader, the answers kept, a state */
  window.proofdeckStudy = {
    fsrs: fsrs, label: proofdeckFsrs.label, grade: function (expected, typed, unit) { return proofdeckAnswers.grade(expected, typed, unit, data.units); },
    reviews: function () { load(); return reviews.slice(); },
    state: function (name) { load(); replay(Date.now()); var it = byName[name]; return it ? states[it.index] || null : null; },
    current: function () { return current ? { item: current.name, showing: lastShowing } : null; }
  };
  route();
})();
