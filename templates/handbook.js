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
  var texts = null;
  var input = document.getElementById("q");
  var count = document.getElementById("count");
  var empty = document.getElementById("empty");
  var timer = 0;
  function filter() {
    if (texts === null) { texts = cards.map(function (c) { return c.textContent.toLowerCase(); }); }
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    cards.forEach(function (card, n) {
      var ok = terms.every(function (t) { return texts[n].indexOf(t) !== -1; });
      card.hidden = !ok;
      if (tocItems[card.id]) { tocItems[card.id].hidden = !ok; }
      if (ok) { shown++; }
    });
    document.querySelectorAll("section.module").forEach(function (m) {
      m.hidden = !m.querySelector("article.card:not([hidden])");
    });
    count.textContent = String(shown);
    empty.hidden = shown !== 0;
  }
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(filter, 80); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { input.value = ""; filter(); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== input) { e.preventDefault(); input.focus(); }
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
