(function () {
  "use strict";
  var root = document.documentElement;
  var buttons = document.querySelectorAll("[data-set-lang]");
  function setLang(lang) {
    root.setAttribute("data-lang", lang);
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", String(buttons[i].getAttribute("data-set-lang") === lang));
    }
    try { localStorage.setItem("proofdeck-lang", lang); } catch (e) { /* file:// may forbid storage */ }
  }
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener("click", function () { setLang(this.getAttribute("data-set-lang")); });
  }
  try {
    var saved = localStorage.getItem("proofdeck-lang");
    if (saved === "zh" || saved === "en" || saved === "both") { setLang(saved); }
  } catch (e) { /* ignore */ }

  var cards = Array.prototype.slice.call(document.querySelectorAll("article.card"));
  var tocItems = {};
  document.querySelectorAll(".toc li[data-for]").forEach(function (li) { tocItems[li.getAttribute("data-for")] = li; });
  var index = JSON.parse(document.getElementById("search-index").textContent);
  var matcher = proofdeckMatch.make(index);
  var input = document.getElementById("q");
  var count = document.getElementById("count");
  var empty = document.getElementById("empty");
  var ranked = document.getElementById("ranked");
  var timer = 0;
  var TOP = 5;
  /* Ranked as GET /api/match ranks (templates/match.js): cards sharing no term are hidden, the best five
     are listed first, linked to their card. */
  function filter() {
    var q = input.value.trim();
    var hits = q ? matcher.rank(q, 0) : null;
    var matched = {};
    if (hits) { hits.forEach(function (h) { matched["card-" + h.slug] = true; }); }
    var shown = 0;
    cards.forEach(function (card) {
      var ok = hits === null || matched[card.id] === true;
      card.hidden = !ok;
      if (tocItems[card.id]) { tocItems[card.id].hidden = !ok; }
      if (ok) { shown++; }
    });
    document.querySelectorAll("section.module").forEach(function (m) {
      m.hidden = !m.querySelector("article.card:not([hidden])");
    });
    ranked.textContent = "";
    (hits || []).slice(0, TOP).forEach(function (h) {
      var li = document.createElement("li");
      var source = tocItems["card-" + h.slug] && tocItems["card-" + h.slug].querySelector("a");
      var a = source ? source.cloneNode(true) : document.createElement("a");
      if (!source) { a.href = "#card-" + h.slug; a.textContent = h.slug; }
      li.appendChild(a);
      li.setAttribute("data-slug", h.slug);
      li.setAttribute("data-score", h.score.toFixed(3));
      ranked.appendChild(li);
    });
    ranked.hidden = !(hits && hits.length);
    count.textContent = String(shown);
    empty.hidden = shown !== 0;
  }
  input.addEventListener("input", function () {
    clearTimeout(timer);
    if (input.value.trim() === "") { filter(); } else { timer = setTimeout(filter, 80); }  /* cleared: at once */
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { input.value = ""; filter(); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== input && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault(); input.focus();  /* "/" typed into another field (a drill's answer) stays there */
    }
  });

  if (window.matchMedia && window.matchMedia("(max-width: 50em)").matches) {
    document.querySelectorAll(".toc-module").forEach(function (d) { d.open = false; });  /* short TOC on phones */
  }

  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = [];
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
  });
  window.addEventListener("afterprint", function () { opened.forEach(function (d) { d.open = false; }); });
})();
