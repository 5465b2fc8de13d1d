/* /graph, and the handbook's graph: draws the JSON block #graph-data with cytoscape. Titles are data: they
   become canvas labels (cytoscape draws text, it parses no HTML), never markup. window.proofdeckGraph is the
   cytoscape core, for tests and the console. #graph's data-open says what opening a card does: "page" (the
   server's /cards/{slug}) or "anchor" (the handbook's #card-{slug} section). Inside a closed <details> (the
   handbook) the graph is drawn when it is first opened. */
(function () {
  "use strict";
  var box = document.getElementById("graph");
  if (!box) return;
  var shell = box.closest("details");
  if (shell && !shell.open) {
    shell.addEventListener("toggle", function start() {
      if (!shell.open) return;
      shell.removeEventListener("toggle", start);
      draw();
    });
  } else {
    draw();
  }

  function draw() {
    var data = JSON.parse(document.getElementById("graph-data").textContent);
    var search = document.getElementById("graph-search");
    var moduleSelect = document.getElementById("graph-module");
    var langSelect = document.getElementById("graph-lang");
    var status = document.getElementById("graph-focus");
    var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                   "#9c755f", "#bab0ac", "#1f77b4", "#2ca02c"];
    var colours = {};
    data.nodes.forEach(function (n) {
      if (!(n.module.code in colours)) colours[n.module.code] = PALETTE[Object.keys(colours).length % PALETTE.length];
    });

    function label(title, lang) {
      if (lang === "zh") return title.zh || title.en;
      if (lang === "en") return title.en || title.zh;
      return [title.zh, title.en].filter(Boolean).join(" · ");
    }

    var lang = document.documentElement.dataset.lang || "both";
    langSelect.value = lang;
    var elements = data.nodes.map(function (n) {
      return {group: "nodes", data: {id: n.slug, module: n.module.code, colour: colours[n.module.code],
                                     zh: n.title.zh, en: n.title.en, label: label(n.title, lang)}};
    }).concat(data.edges.map(function (e, i) {
      return {group: "edges", data: {id: "e" + i, source: e.source, target: e.target}};
    }));

    box.hidden = false;
    document.getElementById("graph-tools").hidden = false;
    document.getElementById("graph-hint").hidden = false;
    var cy = cytoscape({
      container: box, elements: elements, wheelSensitivity: 0.3,
      layout: data.nodes.length <= 300 ? {name: "cose", animate: false, randomize: false}
                                       : {name: "grid", avoidOverlap: true, sort: byModule},
      style: [
        {selector: "node", style: {"background-color": "data(colour)", "label": "data(label)", "font-size": 10,
                                   "text-valign": "bottom", "text-margin-y": 3, "width": 14, "height": 14,
                                   "text-max-width": 160, "text-wrap": "ellipsis", "min-zoomed-font-size": 6}},
        {selector: "edge", style: {"width": 1, "line-color": "#999", "opacity": 0.6, "curve-style": "haystack"}},
        {selector: "node:selected", style: {"border-width": 3, "border-color": "#000", "width": 22, "height": 22,
                                            "font-size": 13, "font-weight": "bold", "z-index": 10}},
        {selector: ".filtered-out", style: {"display": "none"}}
      ]
    });
    window.proofdeckGraph = cy;

    function byModule(a, b) {
      var m = a.data("module").localeCompare(b.data("module"));
      return m || a.id().localeCompare(b.id());
    }

    var focused = null;
    function focus(node) {
      cy.nodes().unselect();
      focused = node;
      if (!node) { status.textContent = ""; return; }
      node.select();
      cy.zoom(Math.max(cy.zoom(), 1.2));
      cy.center(node);
      status.textContent = node.data("label") + " — Enter: " + where(node);
    }
    var inPage = box.dataset.open === "anchor";
    function where(node) { return (inPage ? "#card-" : "/cards/") + encodeURIComponent(node.id()); }
    function open(node) { window.location.assign(where(node)); }

    function find(query) {
      var q = query.trim().toLowerCase();
      if (!q) return null;
      var hits = cy.nodes().filter(function (n) {
        return !n.hasClass("filtered-out") && [n.id(), n.data("zh"), n.data("en")].some(function (s) {
          return (s || "").toLowerCase().indexOf(q) !== -1;
        });
      });
      return hits.length ? hits[0] : null;
    }

    search.addEventListener("input", function () { focus(find(search.value)); });
    search.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); if (focused) open(focused); }
    });
    if (search.form) search.form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && focused) { ev.preventDefault(); open(focused); }
    });
    cy.on("tap", "node", function (ev) { open(ev.target); });
    cy.on("select", "node", function (ev) { focused = ev.target; });

    moduleSelect.addEventListener("change", function () {
      var code = moduleSelect.value;
      cy.batch(function () {
        cy.nodes().forEach(function (n) { n.toggleClass("filtered-out", code !== "" && n.data("module") !== code); });
      });
      document.querySelectorAll("#graph-cards li").forEach(function (li) {
        li.hidden = code !== "" && li.dataset.module !== code;
      });
      if (focused && focused.hasClass("filtered-out")) focus(null);
      cy.fit(cy.nodes(":visible"), 20);
    });

    langSelect.addEventListener("change", function () {
      cy.batch(function () {
        cy.nodes().forEach(function (n) { n.data("label", label({zh: n.data("zh"), en: n.data("en")}, langSelect.value)); });
      });
    });
  }
})();
