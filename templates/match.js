/* proofdeck offline matching: the tokens of app/search/text.py and the ranking of app/search/match.py,
   over the BM25 weights the handbook ships (precomputed by bm25s at export). Keep in step with the Python:
   tests/search/test_handbook_match.py runs both on the evaluation set and compares tokens and ranks. */
var proofdeckMatch = (function () {
  "use strict";
  var WORD = /[a-z0-9]+(?:[-_][a-z0-9]+)*/g;
  var SPACED_NUMBER = /(?<![a-z0-9])([a-z]+) ([0-9]+)(?![a-z0-9])/g;
  var SLASH_LIST = /(?<![a-z0-9])([a-z]+)[-_ ]?([0-9]+)((?:\/[0-9]+)+)(?![a-z0-9])/g;
  var CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var JOINER = /[-_]/g;
  var LETTERS_DIGITS = /^([a-z]+)([0-9]+)$/;

  var ALNUM = /[a-z0-9]/, SEPARATORS = /[\s\-_]+/g;

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }

  function make(index) {
    var enStop = new Set(index.en_stop), zhAlone = new Set(index.zh_alone);
    var zhStop = index.zh_stop.length ? new RegExp(index.zh_stop.map(escapeRe).join("|"), "g") : null;
    var glossary = new RegExp(index.glossary_pattern, "g"), termGroups = index.glossary_terms;

    function normalise(text) { return text.normalize("NFKC").toLowerCase(); }
    function stem(w) {
      if (w.length <= 3 || !/^[a-z]+$/.test(w)) { return w; }
      if (/ies$/.test(w) && !/[ea]ies$/.test(w)) { return w.slice(0, -3) + "y"; }
      if (/es$/.test(w) && !/[aeo]es$/.test(w)) { return w.slice(0, -1); }
      if (/s$/.test(w) && !/(us|ss)$/.test(w)) { return w.slice(0, -1); }
      return w;
    }
    function tokens(text) {
      var norm = normalise(text), out = [], m;
      WORD.lastIndex = 0;
      while ((m = WORD.exec(norm)) !== null) {
        var parts = m[0].split(JOINER);
        parts.forEach(function (p) { if (!enStop.has(p)) { out.push(stem(p)); } });
        parts.forEach(function (p) {
          var split = LETTERS_DIGITS.exec(p);
          if (split) { out.push(split[1], split[2]); }
        });
        if (parts.length > 1) { out.push(stem(parts.join(""))); }
      }
      SPACED_NUMBER.lastIndex = 0;
      while ((m = SPACED_NUMBER.exec(norm)) !== null) { if (!enStop.has(m[1])) { out.push(m[1] + m[2]); } }
      SLASH_LIST.lastIndex = 0;
      while ((m = SLASH_LIST.exec(norm)) !== null) {
        m[3].split("/").slice(1).forEach(function (n) { out.push(m[1] + n); });
      }
      (norm.match(CJK_RUN) || []).forEach(function (run) {
        (zhStop ? run.split(zhStop) : [run]).forEach(function (seg) {
          var chars = Array.from(seg);
          if (chars.length === 1 && !zhAlone.has(chars[0])) { out.push(chars[0]); }
          for (var i = 0; i + 1 < chars.length; i++) { out.push(chars[i] + chars[i + 1]); }
        });
      });
      glossary.lastIndex = 0;
      while ((m = glossary.exec(norm)) !== null) {  /* as app/search/glossary.py matches() */
        var s = m.index, e = s + m[0].length;
        if ((ALNUM.test(norm[s]) && s > 0 && ALNUM.test(norm[s - 1])) ||
            (ALNUM.test(norm[e - 1]) && e < norm.length && ALNUM.test(norm[e]))) { continue; }
        var key = m[0].replace(SEPARATORS, "");
        var found = termGroups[key] || termGroups[key.slice(0, -1)] || [];
        found.forEach(function (g) { out.push("~" + g); });
      }
      return out;
    }
    /* app/search/offline.py packs each token's postings in base-32 digits: gap, weight × scale, … */
    var DIGIT = new Int8Array(128).fill(-1), ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
    for (var a = 0; a < ALPHABET.length; a++) { DIGIT[ALPHABET.charCodeAt(a)] = a; }
    var unpacked = new Map();
    function postingsOf(table, tok) {
      var s = table[tok];
      if (typeof s !== "string") { return null; }
      var key = (table === index.cards ? "c" : "u") + tok, p = unpacked.get(key);
      if (p) { return p; }
      var nums = [], n = 0;
      for (var i = 0; i < s.length; i++) {
        var d = DIGIT[s.charCodeAt(i)];
        n = n * 32 + (d & 31);
        if (d < 32) { nums.push(n); n = 0; }
      }
      p = new Array(nums.length);
      for (var k = 0, doc = 0; k < nums.length; k += 2) { doc += nums[k]; p[k] = doc; p[k + 1] = nums[k + 1] / index.scale; }
      unpacked.set(key, p);
      return p;
    }
    function add(scores, postings, tok) {
      var p = postingsOf(postings, tok);
      if (!p) { return; }
      for (var i = 0; i < p.length; i += 2) { scores[p[i]] += p[i + 1]; }
    }
    /* [{slug, score}] best first, only cards that share a token with the question. */
    function rank(q, limit) {
      var toks = Array.from(new Set(tokens(q)));
      var n = index.slugs.length, cards = new Float64Array(n), units = new Float64Array(index.unit_card.length);
      toks.forEach(function (t) { add(cards, index.cards, t); add(units, index.units, t); });
      var best = new Float64Array(n);
      for (var u = 0; u < units.length; u++) {
        if (units[u] > best[index.unit_card[u]]) { best[index.unit_card[u]] = units[u]; }
      }
      var out = [];
      for (var c = 0; c < n; c++) {
        var total = cards[c] + index.unit_weight * best[c];
        if (total > 0) { out.push({ slug: index.slugs[c], score: total, order: c }); }
      }
      out.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
      return limit ? out.slice(0, limit) : out;
    }
    return { tokens: tokens, rank: rank };
  }
  return { make: make };
})();
if (typeof module !== "undefined") { module.exports = proofdeckMatch; }
