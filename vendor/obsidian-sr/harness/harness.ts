// A command-line harness around the Obsidian Spaced Repetition plugin's own parser (v1.15.4): for each
// note of a folder, the plugin's path from tags to cards (topic path -> note loader -> question parser),
// with the plugin's default settings. Obsidian's metadata cache is replaced by reading front-matter tags
// (YAML) and inline tags by Obsidian's rules. Built into ../sr-parser.cjs by ../rebuild.sh.
//
//   node sr-parser.cjs [--detail] [--width=N] ['--settings={...}'] VAULT_DIR
import * as fs from "fs";
import * as path from "path";
import { load } from "js-yaml";

import { DataStore } from "../plugin/src/data/data-store/base/data-store";
import { DataStoreAlgorithm } from "../plugin/src/data/data-store/base/data-store-algorithm";
import { NoteDataStoreAlgorithmOsr } from "../plugin/src/data/data-store/notes-data-store/note-data-store-algorithm-osr";
import { NotesDataStore } from "../plugin/src/data/data-store/notes-data-store/notes-data-store";
import { TopicPath } from "../plugin/src/data/data-structures/deck/topic-path";
import { frontmatterTagPseudoLineNum } from "../plugin/src/data/data-structures/file/sr-file";
import { DEFAULT_SETTINGS, SettingsUtil } from "../plugin/src/data/settings";
import { NoteFileLoader } from "../plugin/src/note/note-file-loader";
import { parse } from "../plugin/src/parser";
import { SRAlgorithm } from "../plugin/src/scheduling/algorithms/base/sr-algorithm";
import { SRAlgorithmOsr } from "../plugin/src/scheduling/algorithms/osr/srs-algorithm-osr";
import { splitNoteIntoFrontmatterAndContent } from "../plugin/src/utils/strings";
import { UnitTestFileModifier } from "../plugin/tests/unit/helpers/unit-test-file-modifiers";

/* eslint-disable @typescript-eslint/no-explicit-any */
var settings = { ...DEFAULT_SETTINGS };
for (const a of process.argv.slice(2))
  if (a.startsWith("--settings=")) Object.assign(settings, JSON.parse(a.slice("--settings=".length)));
function pos(line) {
  return { line, col: -1, offset: -1 };
}
export function contentTags(text) {
  const [frontmatter] = splitNoteIntoFrontmatterAndContent(text);
  const fmLines = frontmatter ? frontmatter.split("\n").length : 0;
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const out = [];
  let fence = null;
  let inDisplayMath = false;
  let inComment = false;
  for (let i = fmLines; i < lines.length; i++) {
    let line = lines[i];
    const f = line.match(/^\s*(?:>\s*)*(`{3,}|~{3,})/);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    if (inComment) {
      const end = line.indexOf("%%");
      if (end < 0) continue;
      line = line.slice(end + 2);
      inComment = false;
    }
    line = line.replace(/%%.*?%%/g, " ").replace(/<!--.*?-->/g, " ");
    if (/%%/.test(line)) {
      line = line.slice(0, line.indexOf("%%"));
      inComment = true;
    }
    line = line.replace(/(`+)[\s\S]*?\1/g, " ");
    if (inDisplayMath) {
      const end = line.indexOf("$$");
      if (end < 0) continue;
      line = line.slice(end + 2);
      inDisplayMath = false;
    }
    line = line.replace(/\$\$[\s\S]*?\$\$/g, " ");
    if (line.includes("$$")) {
      line = line.slice(0, line.indexOf("$$"));
      inDisplayMath = true;
    }
    line = line.replace(/(?<!\\)\$(?=\S)[^$]*?\S\$/g, " ");
    const re = /(^|\s)#([\p{L}\p{N}\p{M}_\-/]+)/gu;
    let m;
    while (m = re.exec(line)) {
      if (/^[\d/]+$/.test(m[2])) continue;
      out.push({ tag: "#" + m[2], position: { start: pos(i), end: pos(i) } });
    }
  }
  return out;
}
export function frontmatterData(text) {
  const [frontmatter] = splitNoteIntoFrontmatterAndContent(text);
  if (!frontmatter) return {};
  const body = frontmatter.split("\n").slice(1, -1).join("\n");
  const data = load(body);
  return data && typeof data === "object" ? data : {};
}
function frontmatterTags(text) {
  const tags = frontmatterData(text)["tags"];
  if (tags === void 0 || tags === null) return [];
  return String(tags).split(",").filter((t) => t !== "").map((t) => t.startsWith("#") ? t : "#" + t);
}
var VaultNoteFile = class {
  constructor(content, relPath) {
    this.content = content;
    this.relPath = relPath;
  }
  get path() {
    return this.relPath;
  }
  get basename() {
    return path.basename(this.relPath, ".md");
  }
  get tfile() {
    throw new Error("no TFile outside Obsidian");
  }
  async getFrontmatter() {
    const m = /* @__PURE__ */ new Map();
    for (const [k, v] of Object.entries(frontmatterData(this.content)))
      m.set(k, (Array.isArray(v) && v.length > 0 ? v[0] : v) + "");
    return m;
  }
  getAllTagsFromCache() {
    return [...frontmatterTags(this.content), ...contentTags(this.content).map((t) => t.tag)];
  }
  getAllTagsFromText() {
    const fm = frontmatterTags(this.content).map((tag) => ({
      tag,
      position: { start: pos(frontmatterTagPseudoLineNum), end: pos(frontmatterTagPseudoLineNum) }
    }));
    return [...contentTags(this.content), ...fm];
  }
  getQuestionContext(cardLine) {
    const lines = this.content.split("\n");
    const stack = [];
    let fence = false;
    for (let i = 0; i <= cardLine && i < lines.length; i++) {
      if (/^\s*(`{3,}|~{3,})/.test(lines[i])) fence = !fence;
      const h = !fence && lines[i].match(/^(#{1,6})\s+(.*)$/);
      if (!h) continue;
      while (stack.length && stack[stack.length - 1][0] >= h[1].length) stack.pop();
      stack.push([h[1].length, h[2].trim()]);
    }
    return stack.map((s) => s[1]);
  }
  getTextDirection() {
    return 0 /* Unspecified */;
  }
  async read() {
    return this.content;
  }
  async write(_) {
    throw new Error("read-only");
  }
  async getNoteSchedule() {
    return null;
  }
  async setNoteSchedule(_) {
  }
  async getNoteId() {
    return null;
  }
  async getOrCreateNoteId() {
    return "harness";
  }
};
function walk(dir, root, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, root, out);
    else if (e.name.endsWith(".md")) out.push(path.relative(root, p));
  }
}
var TYPE = ["SingleLineBasic", "SingleLineReversed", "MultiLineBasic", "MultiLineReversed", "Cloze"];
async function main() {
  const args = process.argv.slice(2);
  const detail = args.includes("--detail");
  const width = Number((args.find((a) => a.startsWith("--width=")) || "--width=80").slice(8));
  const root = args.filter((a) => !a.startsWith("--"))[0];
  if (!root) {
    console.error("usage: harness.cjs [--detail] [--width=N] VAULT_DIR");
    process.exit(2);
  }
  DataStore.instance = new NotesDataStore(settings, new UnitTestFileModifier());
  SRAlgorithm.instance = new SRAlgorithmOsr(settings);
  DataStoreAlgorithm.instance = new NoteDataStoreAlgorithmOsr(settings);
  const files = [];
  walk(root, root, files);
  const counts = {};
  const details = {};
  const cut = (s) => s.length > width ? s.slice(0, width) + "\u2026" : s;
  for (const rel of files) {
    if (SettingsUtil.isPathInFoldersToIgnore(settings, rel)) continue;
    const file = new VaultNoteFile(fs.readFileSync(path.join(root, rel), "utf8"), rel);
    const tags = file.getAllTagsFromCache();
    const topicPath = TopicPath.getTopicPathOfFile(file, settings);
    let questions = [];
    if (topicPath.hasPath && !SettingsUtil.isAnyTagIgnoredForFlashcards(settings, tags)) {
      const note = await new NoteFileLoader(settings).load(file, 1 /* Ltr */, topicPath);
      questions = note ? note.questionList : [];
    }
    counts[rel] = questions.reduce((n, q) => n + q.cards.length, 0);
    if (detail) {
      const [, content] = splitNoteIntoFrontmatterAndContent(file.content);
      details[rel] = {
        flashcardTags: tags.filter((t) => SettingsUtil.isFlashcardTag(settings, t)),
        cards: counts[rel],
        // what parse() alone finds, tags or not (the plugin skips notes without a flashcard tag)
        rawParsed: parse(content, {
          singleLineCardSeparator: settings.singleLineCardSeparator,
          singleLineReversedCardSeparator: settings.singleLineReversedCardSeparator,
          multilineCardSeparator: settings.multilineCardSeparator,
          multilineReversedCardSeparator: settings.multilineReversedCardSeparator,
          multilineCardEndMarker: settings.multilineCardEndMarker,
          clozePatterns: settings.clozePatterns
        }).length,
        questions: questions.map((q) => ({
          type: TYPE[q.questionType],
          lines: [q.parsedQuestionInfo.firstLineNum + 1, q.parsedQuestionInfo.lastLineNum + 1],
          deck: q.topicPathList ? q.topicPathList.format("|") : null,
          context: q.questionContext,
          cards: q.cards.map((c) => ({ front: cut(c.front), back: cut(c.back) }))
        }))
      };
    }
  }
  console.log(JSON.stringify(detail ? details : counts, null, 1));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
