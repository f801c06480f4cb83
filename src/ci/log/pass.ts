/**
 * The one pass over a log, line by line, and everything it has seen: the failing tests, files,
 * errors and repository frames named; the excerpts (blocks) around them; the names that run over
 * several lines (mocha's, jest's suite, tape's heading); the monorepo packages. A LogPass owns
 * that state; `line` takes the next raw line.
 */
import { type ExtractOptions, BEFORE, AFTER, MAX_BLOCK_LINES, MAX_BLOCKS, MAX_ERRORS, MAX_FRAMES, TAP_SUMMARY, GAP, type Block } from './types.js';
import { cleanLine, isNoise, stripWorkspace } from './clean.js';
import { capName, type LineKind, classify, isPassingLine, isRepoPath } from './recognise.js';
import { failedPackageOf, filteredPackages } from './packages.js';
import { anchorKey } from './render.js';

export class LogPass {
  readonly tests = new Set<string>();
  readonly files = new Set<string>();
  readonly errors = new Set<string>();
  readonly frames = new Set<string>();
  readonly blocks: Block[] = [];
  /** Monorepo packages: those that failed, those a step's command filtered on. */
  readonly packages = new Set<string>();
  readonly filtered = new Set<string>();
  /** Failing-test names read from TAP `not ok` points (the TAP parser has the last word on them). */
  readonly tapPoints = new Set<string>();
  /** Every cleaned line (framing removed), for the test parsers. */
  readonly cleaned: string[] = [];
  /** Index in `cleaned` of the last line recognised as a failing test. */
  lastTestLine = -1;
  /** Lines seen, and how many of them were runner noise. */
  lines = 0;
  noise = 0;
  private readonly blockKeys = new Set<string>();
  private readonly ring: string[] = [];
  private current: Block | null = null;
  private after = 0;
  private mocha: string[] | null = null;
  private lastAdded = 0;
  private lastFailFile = '';
  /** tape: the `# test name` heading the next assertions belong to. */
  private tapHeading = '';
  /** The monorepo package whose npm banner was seen last. */
  private banner = '';

  constructor(private readonly opts: ExtractOptions) {}

  /** The next line of the log, raw (already cut to a bounded length). */
  line(raw: string): void {
    const { opts } = this;
    this.lines++;
    const line0 = cleanLine(raw);
    if (line0.startsWith('##[group]Run ') || line0.startsWith('> ') || line0.startsWith('npm error workspace ')) {
      const b = /^> (\S+)@\S* [\w:.-]+\s*$/.exec(line0);
      if (b) this.banner = b[1];
      const w = /^npm error workspace (\S+)@\S*\s*$/.exec(line0);
      if (w) this.packages.add(w[1]);
      if (line0.startsWith('##[group]Run ')) for (const p of filteredPackages(line0.slice(13))) this.filtered.add(p);
    }
    const failedPackage = failedPackageOf(line0);
    if (failedPackage) this.packages.add(failedPackage);
    const framed = /^(?:##\[(?:error|warning|notice)\]|::(?:error|warning|notice)[^:]*::)/.exec(line0);
    const forParser = stripWorkspace(framed ? line0.slice(framed[0].length) : line0, opts.repoName);
    if (framed || (!line0.startsWith('##[') && !line0.startsWith('::') && !line0.startsWith('[command]'))) this.cleaned.push(forParser);
    if (isNoise(line0)) {
      this.noise++;
      return;
    }
    const stripped = stripWorkspace(line0, opts.repoName);
    const last = stripped.charCodeAt(stripped.length - 1);
    const line = last === 32 || last === 9 ? stripped.trimEnd() : stripped;
    const first = line.charCodeAt(0);
    const t = first === 32 || first === 9 ? line.trimStart() : line;
    const kind = this.recognise(t, line, first);
    const { anchor, shown } = this.record(kind, t, line);
    this.excerpt(kind, t, anchor, shown);
  }

  /** What a line is (a failing test, a file, an error, a frame...), with the names that run over several lines: mocha's `1) suite` + `   test:`, jest's suite that failed to run, tape's `# name` heading. */
  private recognise(t: string, line: string, first: number): LineKind {
    let kind: LineKind = classify(t);
    // Multi-line names: mocha's `1) suite` + `   test:`; jest's `● Test suite failed to run` after `FAIL file`.
    if (kind.kind === 'plain') {
      if (this.mocha && t.endsWith(':') && !t.includes(': ')) {
        kind = { kind: 'test', name: [...this.mocha, t.slice(0, -1)].join(' > ') };
        this.mocha = null;
      } else if (this.mocha && this.mocha.length < 4 && !t.includes(': ') && t.length < 200) {
        this.mocha.push(t);
      } else {
        this.mocha = null;
        const m = /^\d+\) (.+)$/.exec(t);
        if (m && t.length < 240) this.mocha = [m[1]];
        else if (t.startsWith('● Test suite failed to run') && this.lastFailFile) kind = { kind: 'test', name: `${this.lastFailFile} > Test suite failed to run` };
      }
    } else {
      this.mocha = null;
    }
    if (kind.kind === 'file') this.lastFailFile = kind.name;
    // tape: `# name` heads the assertions of test `name`; a failing assertion names its message, not the test
    if (first !== 32 && first !== 9 && t.startsWith('# ') && !t.startsWith('# Subtest:') && !TAP_SUMMARY.test(t)) this.tapHeading = t.slice(2).trim();
    else if (kind.kind === 'test' && this.tapHeading && t === line && t.startsWith('not ok ')) kind = { kind: 'test', name: this.tapHeading };
    return kind;
  }

  /** Records what the line names (a test, a file, an error, a repository frame); whether it anchors an excerpt (0 test, 1 compiler error, 2 other error) and the text the excerpt shows of it (null: left out). */
  private record(kind: LineKind, t: string, line: string): { anchor: number | null; shown: string | null } {
    let anchor: number | null = null;
    let shown: string | null = line;
    switch (kind.kind) {
      case 'test':
        if (kind.name) this.tests.add(capName(kind.name));
        if (this.banner) this.packages.add(this.banner);
        if (kind.name && t.startsWith('not ok ')) this.tapPoints.add(capName(kind.name));
        this.lastTestLine = this.cleaned.length - 1;
        anchor = 0;
        break;
      case 'file':
        this.files.add(kind.name);
        break;
      case 'compile':
        if (this.errors.size < MAX_ERRORS) this.errors.add(kind.text.slice(0, 400));
        anchor = 1;
        break;
      case 'error':
        if (this.errors.size < MAX_ERRORS) this.errors.add(kind.text.slice(0, 400));
        anchor = 2;
        break;
      case 'frame':
        if (isRepoPath(kind.path, this.opts.isRepoFile)) {
          if (this.frames.size < MAX_FRAMES) this.frames.add(kind.text.replace(/^at /, '').slice(0, 300));
        } else {
          shown = null; // dependency and runtime frames are left out of the excerpts
        }
        break;
      default:
        // Passing tests explain nothing about a failure: left out of the excerpts.
        if (isPassingLine(t)) shown = null;
        break;
    }
    return { anchor, shown };
  }

  /** The excerpts: a block opens at an anchor with the lines before it, takes the lines after it, and never spans a long stretch of left-out lines. */
  private excerpt(kind: LineKind, t: string, anchor: number | null, shown: string | null): void {
    // An excerpt never spans a long stretch of left-out lines (it would mislabel where things are).
    if (this.current && this.lines - this.lastAdded > GAP) this.current = null;
    if (anchor !== null) {
      this.after = AFTER;
      if (this.current && this.current.lines.length < MAX_BLOCK_LINES) {
        this.current.priority = Math.min(this.current.priority, anchor);
      } else {
        this.current = null;
        // Each failing test is its own block; repeated errors (other numbers, other ids) are one.
        const key = kind.kind === 'test' ? `test:${kind.name}` : anchorKey(t);
        if (this.blocks.length < MAX_BLOCKS && !this.blockKeys.has(key)) {
          this.blockKeys.add(key);
          this.current = { priority: anchor, start: this.lines, lines: [...this.ring], key };
          this.lastAdded = this.lines;
          this.blocks.push(this.current);
        }
        this.ring.length = 0;
      }
    }
    if (shown === null) return;
    if (this.current && (anchor !== null || this.after > 0)) {
      if (this.current.lines.length < MAX_BLOCK_LINES) this.current.lines.push(shown);
      this.lastAdded = this.lines;
      if (anchor === null) this.after--;
      this.ring.length = 0;
      return;
    }
    this.current = null;
    this.ring.push(shown);
    if (this.ring.length > BEFORE) this.ring.shift();
  }
}
