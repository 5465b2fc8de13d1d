/* Typed drill answers graded in the handbook exactly as on the server: a port of app/items/answers.py
   (parse_number, its messages included) and app/items/drills.py (grade: within 1 %, math.isclose) with
   app/items/unit_table.py (units converted by the table of float factors in the page data). Python's
   semantics are kept where JavaScript's differ: \d and \s are Unicode's (category Nd, str.isspace), float()
   reads any script's digits, lengths count code points, repr() and the "g" format are Python's.
   tests/items/test_typed_answer_parity.py runs one table of answers through both graders. */
var proofdeckAnswers = (function () {
  "use strict";
  var SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var TRANSLATE = { "。": ".", "｡": ".", "、": ",", "−": "-", "–": "-", "—": "-" };
  var PREFIX = new RegExp("^(?:约|大约|≈|~|about[" + SPACE + "])[" + SPACE + "]*", "iu");
  var SHAPE = new RegExp("^([-+]?[\\p{Nd}.,_]*\\p{Nd}[\\p{Nd}.,_]*(?:[eE][-+]?\\p{Nd}+)?)[" + SPACE + "]*" +
                         "([^\\p{Nd}" + SPACE + "][^\\p{Nd}]{0,15})?$", "u");
  var EXP = /^([^eE]*)([eE][-+]?\p{Nd}+)?$/u;
  var DIGITS = /^\p{Nd}+$/u, ND = /\p{Nd}/u;
  var STRIP = new RegExp("^[" + SPACE + "]+|[" + SPACE + "]+$", "gu");
  var UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
  var TOLERANCE = 0.01;

  function AnswerError(en, zh, readings) { this.en = en; this.zh = zh; this.readings = readings || []; }
  function len(s) { return Array.from(s).length; }
  function strip(s) { return s.replace(STRIP, ""); }

  /* Python's repr() of a str */
  function repr(s) {
    var quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    var out = quote;
    for (var ch of s) {
      var cp = ch.codePointAt(0);
      if (ch === "\\" || ch === quote) out += "\\" + ch;
      else if (ch === "\t") out += "\\t";
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch !== " " && UNPRINTABLE.test(ch)) {
        var hex = cp.toString(16);
        out += cp < 0x100 ? "\\x" + hex.padStart(2, "0") : cp < 0x10000 ? "\\u" + hex.padStart(4, "0")
                                                              : "\\U" + hex.padStart(8, "0");
      } else out += ch;
    }
    return out + quote;
  }

  /* Python's format(x, "g") */
  function g(x) {
    if (x === Infinity) return "inf";
    if (x === -Infinity) return "-inf";
    if (x !== x) return "nan";
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    var e = x.toExponential(5), m = e.split("e"), exp = Number(m[1]);
    var trim = function (t) { return t.indexOf(".") >= 0 ? t.replace(/0+$/, "").replace(/\.$/, "") : t; };
    if (exp >= -4 && exp < 6) return trim(x.toFixed(5 - exp));
    return trim(m[0]) + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }

  /* Python's float() of a string of Unicode digits, "." and an exponent: each digit by its value */
  function ascii(text) {
    var out = "";
    for (var ch of text) {
      if (!ND.test(ch)) { out += ch; continue; }
      var cp = ch.codePointAt(0), zero = cp;
      while (zero > 0 && ND.test(String.fromCodePoint(zero - 1))) zero--;  /* digits come in runs of ten */
      out += String((cp - zero) % 10);
    }
    return out;
  }

  function notANumber(typed) {
    return new AnswerError(repr(typed) + " is not a number; type the value in the unit asked, e.g. 42.5 or 42,5",
                           "“" + typed + "”不是一个数；请按题目要求的单位输入数值，例如 42.5 或 42,5");
  }
  function grouped(digits, sep) {
    var esc = sep === "." ? "\\." : sep;
    return new RegExp("^\\p{Nd}{1,3}(?:" + esc + "\\p{Nd}{3})+$", "u").test(digits);
  }
  function count(s, c) { return s.split(c).length - 1; }

  /* {value, alternatives} as answers.py's _read */
  function read(num, typed) {
    var m = EXP.exec(num), mantissa = m[1], exp = m[2] || "", sign = "";
    if (mantissa && "+-".indexOf(mantissa[0]) >= 0) { sign = mantissa[0]; mantissa = mantissa.slice(1); }
    mantissa = mantissa.split("_").join("");
    var commas = count(mantissa, ","), dots = count(mantissa, ".");
    var value = function (text) { return Number(ascii(sign + text + exp)); };
    var whole, frac, i;
    if (commas === 0 && dots <= 1) return { value: value(mantissa), alternatives: [] };
    if (commas && dots) {
      var decimal = mantissa.lastIndexOf(".") > mantissa.lastIndexOf(",") ? "." : ",";
      var group = decimal === "." ? "," : ".";
      i = mantissa.lastIndexOf(decimal);
      whole = mantissa.slice(0, i); frac = mantissa.slice(i + 1);
      if (count(mantissa, decimal) !== 1 || !grouped(whole, group) || !DIGITS.test(frac)) throw notANumber(typed);
      return { value: value(whole.split(group).join("") + "." + frac), alternatives: [] };
    }
    var sep = commas ? "," : ".", n = commas ? commas : dots;
    if (n > 1) {
      if (!grouped(mantissa, sep)) throw notANumber(typed);
      return { value: value(mantissa.split(sep).join("")), alternatives: [] };
    }
    i = mantissa.indexOf(",");
    whole = mantissa.slice(0, i); frac = mantissa.slice(i + 1);
    if (!DIGITS.test(frac) || (whole && !DIGITS.test(whole))) throw notANumber(typed);
    var asDecimal = value((whole || "0") + "." + frac);
    if (len(frac) !== 3 || !whole || len(whole) > 3 || whole[0] === "0") return { value: asDecimal, alternatives: [] };
    return { value: asDecimal, alternatives: [value(whole + frac)] };
  }

  /* [the number in typed, the unit written after it ("" when none)], as answers.split_number; throws
     AnswerError when there is no number or when it reads two ways */
  function splitNumber(typed) {
    typed = typed || "";
    var text = "";
    for (var ch of typed.normalize("NFKC")) text += Object.prototype.hasOwnProperty.call(TRANSLATE, ch) ? TRANSLATE[ch] : ch;
    text = strip(strip(text).replace(PREFIX, ""));
    var m = SHAPE.exec(text);
    if (!m) throw notANumber(typed);
    var reading = read(m[1], typed);
    if (reading.alternatives.length) {
      var two = reading.alternatives[0], num = m[1];
      throw new AnswerError(
        repr(num) + " reads two ways: " + g(two) + " (comma between thousands) or " + g(reading.value) +
          " (decimal comma). Type " + g(two) + " or " + g(reading.value) + ".",
        "“" + num + "”有两种读法：" + g(two) + "（逗号为千位分隔）或 " + g(reading.value) + "（逗号为小数点）。" +
          "请输入 " + g(two) + " 或 " + g(reading.value) + "。",
        [two, reading.value]);
    }
    if (!isFinite(reading.value)) throw new AnswerError(repr(typed) + " is not a finite number", "“" + typed + "”不是有限的数");
    return [reading.value, strip(m[2] || "")];
  }
  function parseNumber(typed) { return splitNumber(typed)[0]; }

  /* Python's format(x, ",.6g") below a million, else format(x, ",.0f") (typed_quantity._fmt) */
  function groupDigits(s) {
    var m = /^(-?)([0-9]+)(.*)$/.exec(s);
    return m ? m[1] + m[2].replace(/\B(?=([0-9]{3})+$)/g, ",") + m[3] : s;
  }
  function fmt(x) {
    if (Math.abs(x) < 1e6 || !isFinite(x)) return groupDigits(g(x));
    var f = Math.floor(x), d = x - f, n = d > 0.5 ? f + 1 : d < 0.5 ? f : (f % 2 === 0 ? f : f + 1);
    return groupDigits(BigInt(n).toString());
  }
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }

  /* typed_quantity.wrong_unit */
  function wrongUnit(table, written, value, drillUnit, converted, kind) {
    if (kind !== null) {
      var words = own(table.kinds, kind) ? table.kinds[kind] : table.kinds[""];
      return { en: "you wrote " + written + " (" + words[0] + "); the question asks for " + drillUnit,
               zh: "你写的单位是 " + written + "（" + words[1] + "），题目要求的是 " + drillUnit };
    }
    if (converted !== null)
      return { en: "you wrote " + written + "; " + fmt(value) + " " + written + " is " + fmt(converted) + " " + drillUnit,
               zh: "你写的单位是 " + written + "；" + fmt(value) + " " + written + " 等于 " + fmt(converted) + " " + drillUnit };
    return { en: "you wrote " + written + "; the question asks for " + drillUnit,
             zh: "你写的单位是 " + written + "，题目要求的是 " + drillUnit };
  }

  /* unit_table.entry */
  function entry(table, spelling) {
    if (own(table.units, spelling)) return table.units[spelling];
    var lower = spelling.toLowerCase();
    return own(table.folded, lower) ? table.units[table.folded[lower]] : null;
  }

  /* unit_table.read: {value, written, mismatch, amount} */
  function readUnit(table, value, written, drillUnit) {
    if (!written || written === drillUnit) return { value: value, written: "", mismatch: null, amount: null };
    var want = entry(table, drillUnit), got = entry(table, written), bad = null;
    if (want === null) bad = wrongUnit(table, written, value, drillUnit, null, null);
    else if (got === null) bad = wrongUnit(table, written, value, drillUnit, null, "");
    else if (got[0] !== want[0]) bad = wrongUnit(table, written, value, drillUnit, null, got[0]);
    if (bad) return { value: value, written: written, mismatch: bad, amount: null };
    return { value: value * got[1] / want[1], written: written, mismatch: null, amount: value };
  }

  /* typed_quantity.mismatch_note */
  function mismatchNote(table, t, expected, drillUnit) {
    if (t.mismatch !== null) return t.mismatch;
    if (!t.written || Math.abs(t.value - expected) <= TOLERANCE * Math.abs(expected)) return null;
    return wrongUnit(table, t.written, t.amount === null ? t.value : t.amount, drillUnit, t.value, null);
  }

  function isclose(a, b, rel, abs) {
    if (a === b) return true;
    if (!isFinite(a) || !isFinite(b)) return false;
    var diff = Math.abs(b - a);
    return diff <= Math.abs(rel * b) || diff <= Math.abs(rel * a) || diff <= abs;
  }

  /* drills.grade: {correct, expected, given, note}, or {error: "<en>\n<zh>", en, zh, readings}; table: the
     page data's "units" (unit_table.table()), drillUnit: the showing's unit */
  function grade(expected, typed, drillUnit, table) {
    var split;
    try { split = splitNumber(typed); } catch (e) {
      if (!(e instanceof AnswerError)) throw e;
      return { error: e.en + "\n" + e.zh, en: e.en, zh: e.zh, readings: e.readings };
    }
    var t = readUnit(table, split[0], split[1], drillUnit);
    var ok = t.mismatch === null && isclose(t.value, expected, TOLERANCE, 1e-12);
    return { correct: ok, expected: expected, given: t.value, note: ok ? null : mismatchNote(table, t, expected, drillUnit) };
  }
  return { parseNumber: parseNumber, grade: grade, repr: repr, g: g };
})();
