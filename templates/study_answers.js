/* Typed drill answers graded in the handbook exactly as on the server: a port of app/srs/answers.py
   (parse_number, its messages included) and app/srs/drills.py (grade: within 1 %, math.isclose). Python's
   semantics are kept where JavaScript's differ: \d and \s are Unicode's (category Nd, str.isspace), float()
   reads any script's digits, lengths count code points, repr() and the "g" format are Python's.
   tests/srs/test_typed_answer_parity.py runs one table of answers through both graders. */
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

  /* the number in typed; throws AnswerError when there is none or when it reads two ways */
  function parseNumber(typed) {
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
    return reading.value;
  }

  function isclose(a, b, rel, abs) {
    if (a === b) return true;
    if (!isFinite(a) || !isFinite(b)) return false;
    var diff = Math.abs(b - a);
    return diff <= Math.abs(rel * b) || diff <= Math.abs(rel * a) || diff <= abs;
  }

  /* drills.grade: {correct, expected, given}, or {error: "<en>\n<zh>", en, zh, readings} */
  function grade(expected, typed) {
    var given;
    try { given = parseNumber(typed); } catch (e) {
      if (!(e instanceof AnswerError)) throw e;
      return { error: e.en + "\n" + e.zh, en: e.en, zh: e.zh, readings: e.readings };
    }
    return { correct: isclose(given, expected, TOLERANCE, 1e-12), expected: expected, given: given };
  }
  return { parseNumber: parseNumber, grade: grade, repr: repr, g: g };
})();
