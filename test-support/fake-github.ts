/**
 * A fake GitHub REST API for integration and end-to-end tests: a real HTTP server on
 * 127.0.0.1 holding one repository's state in memory (issues, comments, pull requests,
 * collaborators, files, workflow runs, jobs and their logs, reviews and review comments).
 *
 * Every request (path parameters, query, JSON body) and every response body is checked
 * against GitHub's published OpenAPI description, trimmed to the operations agent-fix uses
 * (test-support/fixtures/github-openapi.json, made by scripts/trim-openapi.mjs). A mismatch
 * is recorded in `violations` and answered with a 500 carrying the message, so a test fails
 * loudly; call `assertNoViolations()` at the end of every test. Unknown routes answer 404
 * and are violations too.
 *
 *   const gh = await startFakeGitHub({ owner: 'octo-org', repo: 'demo' });
 *   gh.setPermission('alice', 'write');
 *   gh.addIssue({ number: 42, title: 'Crash on empty input', body: '...', author: 'alice' });
 *   // ... run the code under test with GITHUB_API_URL=gh.url, GITHUB_TOKEN=<anything>
 *   expect(gh.pulls).toHaveLength(1);
 *   gh.assertNoViolations();
 *   await gh.close();
 *
 * Behaviour that mirrors GitHub and matters to callers:
 * - Requests without `Authorization: token|Bearer <t>` get 401 (and a wrong token, when
 *   `opts.token` is set). Created comments and pull requests belong to the authenticated
 *   user, the bot `github-actions[bot]` (`opts.botLogin`).
 * - GET .../collaborators/{username}/permission: a collaborator gets 200 with the legacy
 *   `permission` (maintain -> write, triage -> read) and the real `role_name`. A user who
 *   exists but is not a collaborator gets 200 with `read` on a public repository and `none`
 *   on a private one (GitHub does not 404 for them); a login that is not a GitHub user at
 *   all gets 404 Not Found. Users exist once seen (setPermission, addUser, authors).
 * - POST .../pulls for a head that already has an open PR into the same base: 422
 *   "Validation Failed" with `errors[0].message` "A pull request already exists for
 *   owner:branch.". `head` equal to `base`: 422 "No commits between ...". Bodies over
 *   65536 characters: 422 "body is too long". `draftPullRequests: false`: a draft is
 *   refused with 422 "Draft pull requests are not supported in this repository.". With `opts.gitDir` (a bare repository),
 *   `head` and `base` must be branches in it (else 422) and PR shas come from it.
 * - GET .../pulls filters by `state` (default open), `base` and `head`; like GitHub, a
 *   `head` without the `owner:` prefix is ignored (the filter does nothing).
 * - Lists paginate with `per_page` (max 100) / `page` and a `Link` header.
 * - GET .../actions/jobs/{job_id}/logs answers 302 to `/_logs/<id>` on this server, which
 *   serves the plain text without requiring the token (like a signed storage URL).
 *
 * - Reviews: `addReview` seeds a submitted review with inline comments, `addReviewComment` a
 *   single inline comment (filed under a review of its own, like GitHub). A reply made through
 *   the replies endpoint joins the thread of the first comment (`in_reply_to_id`), by the bot.
 * - PATCH .../pulls/{n} with `state: closed` closes a PR unmerged (`merged` stays false; a test
 *   sets `merged` on a seeded closed PR); a closed PR is no longer listed as open.
 *
 * Read-only token (`readOnly: true` or `setReadOnly(true)`): every POST, PATCH, PUT and DELETE
 * (after validation) gets GitHub's 403 "Resource not accessible by integration" and is recorded
 * in `writeAttempts`, so a test can assert that a `contents: read` job attempted no write.
 *
 * Fault injection: `failNext({ method, path, status, body, headers, times })` answers the
 * next matching request(s) with that status instead (after request validation), e.g. a
 * 502, or 403 `You have exceeded a secondary rate limit` with a `retry-after` header.
 * `onRequest` runs (and is awaited) before a request is answered: a test can act at that
 * moment (signal the process under test, change state) or hold the answer back.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ------------------------------------------------------------------------------------ types

export type FakePermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  defaultBranch?: string;
  private?: boolean;
  /** Kind of account owning the repository (default Organization). A User owner is an admin collaborator. */
  ownerType?: 'Organization' | 'User';
  /** When set, the only accepted token; otherwise any non-empty token is accepted. */
  token?: string;
  /** The authenticated user that creates comments and PRs (default `github-actions[bot]`). */
  botLogin?: string;
  /** A bare git repository: PR heads/bases must be branches in it and shas are read from it. */
  gitDir?: string;
  /** False: draft PRs are refused with GitHub's 422 (plans without draft support). Default true. */
  draftPullRequests?: boolean;
  /** Clock for timestamps (default: real time). */
  now?: () => Date;
  /**
   * The token is read-only (a workflow token with `contents: read`, as in a `propose` job): every
   * POST, PATCH, PUT and DELETE is answered 403 "Resource not accessible by integration", like
   * GitHub does, and recorded in `writeAttempts`. Also switchable with `setReadOnly`.
   */
  readOnly?: boolean;
}

export interface FakeRepo {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  ownerType: 'Organization' | 'User';
  defaultBranch: string;
  private: boolean;
  description: string | null;
}

export interface FakeUser {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  author: string;
  labels: string[];
  state: 'open' | 'closed';
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakePull {
  id: number;
  number: number;
  title: string;
  body: string | null;
  /** Branch name in this repository. */
  head: string;
  headSha: string;
  base: string;
  baseSha: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  author: string;
  maintainerCanModify: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface FakeReview {
  id: number;
  pullNumber: number;
  author: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';
  body: string;
  commitId: string;
  submittedAt: string | null;
}

export interface FakeReviewComment {
  id: number;
  pullNumber: number;
  /** The review it belongs to (a reply made through the replies endpoint gets one of its own, like GitHub). */
  reviewId: number;
  author: string;
  path: string;
  /** Line of the file (right side) the comment is on; null for a file-level comment. */
  line: number | null;
  startLine: number | null;
  side: 'LEFT' | 'RIGHT';
  body: string;
  diffHunk: string;
  commitId: string;
  inReplyTo: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface FakeWorkflowRun {
  id: number;
  name: string;
  workflowId: number;
  path: string;
  runNumber: number;
  runAttempt: number;
  event: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  headBranch: string;
  headSha: string;
  displayTitle: string;
  actor: string;
  /** Numbers of the PRs of this repository the run belongs to. */
  pullRequests: number[];
  createdAt: string;
  updatedAt: string;
}

export interface FakeJobStep {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  number: number;
}

export interface FakeJob {
  id: number;
  runId: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null;
  steps: FakeJobStep[];
  startedAt: string;
  completedAt: string | null;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string, as sent (percent-encoded). */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
  rawBody: string;
  /** Status answered (0 while in flight). */
  status: number;
}

export interface FaultSpec {
  /** HTTP method to match (any when omitted). */
  method?: string;
  /** Exact path (e.g. `/repos/o/r/pulls`), an OpenAPI template (`/repos/{owner}/{repo}/pulls`), or a RegExp tested on the path. */
  path: string | RegExp;
  status: number;
  /** JSON body (default: `{ message: <status text> }`); a string is sent as text/plain. */
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail (default 1). */
  times?: number;
}

// ------------------------------------------------------------------ the OpenAPI contract

type Obj = Record<string, unknown>;
 
type SpecNode = any;

const SPEC_ID = 'https://fake-github.invalid/openapi.json';
const DOCS = 'https://docs.github.com/rest';

interface Route {
  method: string;
  template: string;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
  operation: SpecNode;
}

interface Contract {
  spec: SpecNode;
  ajv: Ajv;
  routes: Route[];
  validators: Map<string, ValidateFunction>;
}

let contract: Contract | null = null;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAPI 3.0 schema -> JSON Schema for Ajv: `nullable`, component refs, ignored `$ref` siblings. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === 'patternProperties') {
      out[key] = isObj(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v)])) : value;
    } else if (key === '$ref' && typeof value === 'string') {
      out[key] = value.replace(/^#\/components\/schemas\//, `${SPEC_ID}#/definitions/`);
    } else if (!['nullable', 'discriminator', 'readOnly', 'writeOnly', 'deprecated', 'xml'].includes(key)) {
      out[key] = toJsonSchema(value);
    }
  }
  const ref: Obj | null = typeof out.$ref === 'string' ? { $ref: out.$ref } : null;
  const base: Obj = ref ?? out; // OpenAPI 3.0: siblings of $ref are ignored
  if (node.nullable === true) {
    if (!ref && typeof base.type === 'string') {
      base.type = [base.type, 'null'];
      if (Array.isArray(base.enum) && !base.enum.includes(null)) base.enum = [...base.enum, null];
      return base;
    }
    return { anyOf: [base, { type: 'null' }] };
  }
  return base;
}

function loadContract(): Contract {
  if (contract) return contract;
  const spec: SpecNode = JSON.parse(readFileSync(new URL('./fixtures/github-openapi.json', import.meta.url), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
  addFormats(ajv);
  ajv.addFormat('repo.nwo', /^[\w.-]+\/[\w.-]+$/);
  const definitions = Object.fromEntries(Object.entries(spec.components.schemas as Obj).map(([k, v]) => [k, toJsonSchema(v)]));
  ajv.addSchema({ $id: SPEC_ID, definitions });

  const routes: Route[] = [];
  for (const [template, methods] of Object.entries(spec.paths as Obj)) {
    const paramNames: string[] = [];
    const pattern = template
      .split('/')
      .map((segment, index, all) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        paramNames.push(param[1]);
        // the file path of the contents API may contain slashes
        return param[1] === 'path' && index === all.length - 1 ? '(.*)' : '([^/]+)';
      })
      .join('/');
    const literalSegments = template.split('/').filter((s) => s && !s.startsWith('{')).length;
    for (const [method, operation] of Object.entries(methods as Obj)) {
      routes.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${pattern}$`), paramNames, literalSegments, operation });
    }
  }
  routes.sort((a, b) => b.literalSegments - a.literalSegments);
  contract = { spec, ajv, routes, validators: new Map() };
  return contract;
}

function resolve(spec: SpecNode, node: SpecNode): SpecNode {
  let current = node;
  while (isObj(current) && typeof current.$ref === 'string') {
    const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(current.$ref) ?? [];
    current = spec.components?.[kind]?.[name];
    if (current === undefined) throw new Error(`dangling $ref ${String(node.$ref)}`);
  }
  return current;
}

function validator(c: Contract, key: string, schema: unknown, strictBody = false): ValidateFunction {
  let fn = c.validators.get(key);
  if (!fn) {
    let converted = toJsonSchema(schema) as Obj;
    // GitHub ignores unknown body fields; the contract does not, to catch typos in callers.
    if (strictBody && converted.type === 'object' && converted.additionalProperties === undefined) {
      converted = { ...converted, additionalProperties: false };
    }
    fn = c.ajv.compile(converted);
    c.validators.set(key, fn);
  }
  return fn;
}

function describeErrors(errors: ErrorObject[] | null | undefined, where: string): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as Obj).additionalProperty)})` : e.keyword === 'enum' ? ` ${JSON.stringify((e.params as Obj).allowedValues)}` : '';
      return `${where}${e.instancePath} ${e.message ?? e.keyword}${extra}`;
    })
    .join('; ');
}

function coerceParam(raw: string, schema: SpecNode): unknown {
  const type = isObj(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

// ------------------------------------------------------------------------------ helpers

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Plain-text body, not validated (raw media types, logs). */
  text?: string;
}

class HttpError extends Error {
  constructor(readonly reply: Reply) {
    super(`HTTP ${reply.status}`);
  }
}

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_kwDO${Buffer.from(`fake:${id}`).toString('base64').replace(/=+$/, '')}`;
}

function notFound(doc: string): HttpError {
  return new HttpError({ status: 404, body: { message: 'Not Found', documentation_url: `${DOCS}/${doc}`, status: '404' } });
}

function validationFailed(doc: string, errors: Obj[]): HttpError {
  return new HttpError({ status: 422, body: { message: 'Validation Failed', errors, documentation_url: `${DOCS}/${doc}`, status: '422' } });
}

const LEGACY_PERMISSION: Record<FakePermission, string> = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' };
const MAX_BODY = 65536;

// ------------------------------------------------------------------------------ server

export class FakeGitHub {
  /** Base URL of the API (GITHUB_API_URL / Octokit `baseUrl`). */
  url = '';
  readonly repo: FakeRepo;
  readonly botLogin: string;
  readonly issues: FakeIssue[] = [];
  readonly comments: FakeComment[] = [];
  readonly pulls: FakePull[] = [];
  readonly reviews: FakeReview[] = [];
  readonly reviewComments: FakeReviewComment[] = [];
  readonly workflowRuns: FakeWorkflowRun[] = [];
  readonly jobs: FakeJob[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  /** Write requests refused because the token was read-only (see `readOnly`). */
  readonly writeAttempts: RecordedRequest[] = [];

  private readonly server: Server;
  private readonly users = new Map<string, FakeUser>();
  private readonly permissions = new Map<string, FakePermission>();
  private readonly files = new Map<string, Map<string, string>>();
  private readonly logs = new Map<number, string>();
  private readonly logTokens = new Map<string, number>();
  private readonly labelIds = new Map<string, number>();
  private readonly faults: (FaultSpec & { remaining: number })[] = [];
  private readonly now: () => Date;
  private readonly createdAt: string;
  private nextNumber = 1;
  private nextIds = { user: 1_000_001, issue: 2_900_000_001, comment: 2_500_000_001, pull: 2_100_000_001, review: 2_600_000_001, reviewComment: 1_900_000_001, run: 12_000_000_001, job: 34_000_000_001, label: 6_000_000_001 };

  constructor(private readonly opts: FakeGitHubOptions = {}) {
    loadContract();
    this.now = opts.now ?? (() => new Date());
    this.createdAt = iso(new Date(this.now().getTime() - 86_400_000 * 30));
    const owner = opts.owner ?? 'octo-org';
    const name = opts.repo ?? 'demo';
    this.repo = {
      id: 700_000_001,
      owner,
      name,
      fullName: `${owner}/${name}`,
      ownerType: opts.ownerType ?? 'Organization',
      defaultBranch: opts.defaultBranch ?? 'main',
      private: opts.private ?? false,
      description: 'A repository served by the fake GitHub API',
    };
    this.botLogin = opts.botLogin ?? 'github-actions[bot]';
    this.users.set(owner.toLowerCase(), { login: owner, id: 9_000_001, type: this.repo.ownerType });
    if (this.repo.ownerType === 'User') this.permissions.set(owner.toLowerCase(), 'admin');
    this.users.set(this.botLogin.toLowerCase(), { login: this.botLogin, id: this.botLogin === 'github-actions[bot]' ? 41898282 : 41_000_001, type: this.botLogin.endsWith('[bot]') ? 'Bot' : 'User' });
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.violations.push(`fake-github internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'fake-github internal error' }));
      });
    });
  }

  /** Start listening on 127.0.0.1 (an ephemeral port). */
  async listen(): Promise<this> {
    await new Promise<void>((resolveListen, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolveListen());
    });
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolveClose) => this.server.close(() => resolveClose()));
  }

  /** Throws with every recorded contract violation (call at the end of each test). */
  assertNoViolations(): void {
    if (this.violations.length > 0) {
      throw new Error(`fake GitHub API saw ${this.violations.length} contract violation(s):\n- ${this.violations.join('\n- ')}`);
    }
  }

  // ------------------------------------------------------------------- state helpers

  /** Members of `org/team-slug` (lower-cased), answered by GET /orgs/{org}/teams/{team_slug}/memberships/{username}. */
  readonly teamMembers = new Map<string, Set<string>>();

  /** Make `login` an active member of the team `org/team-slug`. */
  addTeamMember(team: string, login: string): void {
    this.addUser(login);
    const key = team.toLowerCase();
    if (!this.teamMembers.has(key)) this.teamMembers.set(key, new Set());
    this.teamMembers.get(key)!.add(login.toLowerCase());
  }

  /** Make `login` a collaborator with `permission` (`none` removes the collaborator but keeps the user). */
  setPermission(login: string, permission: FakePermission): void {
    this.addUser(login);
    if (permission === 'none') this.permissions.delete(login.toLowerCase());
    else this.permissions.set(login.toLowerCase(), permission);
  }

  /** Register an existing GitHub account (not a collaborator). */
  addUser(login: string, type: FakeUser['type'] = login.endsWith('[bot]') ? 'Bot' : 'User'): FakeUser {
    const key = login.toLowerCase();
    let user = this.users.get(key);
    if (!user) {
      user = { login, id: this.nextIds.user++, type };
      this.users.set(key, user);
    }
    return user;
  }

  addIssue(p: { number?: number; title: string; body?: string | null; author: string; labels?: string[]; state?: 'open' | 'closed'; locked?: boolean; createdAt?: string; updatedAt?: string }): FakeIssue {
    this.addUser(p.author);
    const number = this.takeNumber(p.number);
    const createdAt = p.createdAt ?? iso(this.now());
    const issue: FakeIssue = {
      id: this.nextIds.issue++,
      number,
      title: p.title,
      body: p.body === undefined ? '' : p.body,
      author: p.author,
      labels: [...(p.labels ?? [])],
      state: p.state ?? 'open',
      locked: p.locked ?? false,
      createdAt,
      updatedAt: p.updatedAt ?? createdAt,
      closedAt: p.state === 'closed' ? createdAt : null,
    };
    this.issues.push(issue);
    return issue;
  }

  addComment(issueNumber: number, p: { body: string; author: string; createdAt?: string; updatedAt?: string }): FakeComment {
    if (!this.findIssueOrPull(issueNumber)) throw new Error(`fake-github: no issue or PR #${issueNumber}`);
    this.addUser(p.author);
    const createdAt = p.createdAt ?? iso(this.now());
    const comment: FakeComment = { id: this.nextIds.comment++, issueNumber, body: p.body, author: p.author, createdAt, updatedAt: p.updatedAt ?? createdAt };
    this.comments.push(comment);
    return comment;
  }

  /** Seed a pull request (as if opened earlier, by the bot unless `author` is given). */
  addPull(p: { number?: number; title: string; body?: string | null; head: string; base?: string; draft?: boolean; state?: 'open' | 'closed'; author?: string; headSha?: string }): FakePull {
    const author = p.author ?? this.botLogin;
    this.addUser(author);
    const createdAt = iso(this.now());
    const base = p.base ?? this.repo.defaultBranch;
    const pull: FakePull = {
      id: this.nextIds.pull++,
      number: this.takeNumber(p.number),
      title: p.title,
      body: p.body === undefined ? '' : p.body,
      head: p.head,
      headSha: p.headSha ?? this.branchSha(p.head) ?? sha1(`head:${p.head}`),
      base,
      baseSha: this.branchSha(base) ?? sha1(`base:${base}`),
      state: p.state ?? 'open',
      draft: p.draft ?? false,
      merged: false,
      author,
      maintainerCanModify: false,
      createdAt,
      updatedAt: createdAt,
      closedAt: p.state === 'closed' ? createdAt : null,
    };
    this.pulls.push(pull);
    return pull;
  }

  /**
   * Seed a submitted review of a pull request, with its inline comments (as a reviewer would
   * leave them on the diff). Comments default to the right side of the PR head.
   */
  addReview(p: {
    pullNumber: number;
    author: string;
    state: FakeReview['state'];
    body?: string;
    comments?: { path: string; line?: number | null; startLine?: number | null; body: string; diffHunk?: string }[];
    submittedAt?: string;
  }): { review: FakeReview; comments: FakeReviewComment[] } {
    const pull = this.pulls.find((x) => x.number === p.pullNumber);
    if (!pull) throw new Error(`fake-github: no PR #${p.pullNumber}`);
    this.addUser(p.author);
    const commitId = this.pullHeadSha(pull);
    const at = p.submittedAt ?? iso(this.now());
    const review: FakeReview = { id: this.nextIds.review++, pullNumber: pull.number, author: p.author, state: p.state, body: p.body ?? '', commitId, submittedAt: p.state === 'PENDING' ? null : at };
    this.reviews.push(review);
    const comments = (p.comments ?? []).map((c) => this.pushReviewComment(pull, review.id, p.author, c, null, at));
    return { review, comments };
  }

  /** Seed a single inline comment on a pull request (GitHub files it under a review of its own). */
  addReviewComment(p: { pullNumber: number; author: string; path: string; line?: number | null; body: string; inReplyTo?: number; diffHunk?: string; createdAt?: string }): FakeReviewComment {
    const pull = this.pulls.find((x) => x.number === p.pullNumber);
    if (!pull) throw new Error(`fake-github: no PR #${p.pullNumber}`);
    this.addUser(p.author);
    const at = p.createdAt ?? iso(this.now());
    const parent = p.inReplyTo === undefined ? null : this.reviewComments.find((c) => c.id === p.inReplyTo) ?? null;
    if (p.inReplyTo !== undefined && !parent) throw new Error(`fake-github: no review comment ${p.inReplyTo}`);
    const review: FakeReview = { id: this.nextIds.review++, pullNumber: pull.number, author: p.author, state: 'COMMENTED', body: '', commitId: this.pullHeadSha(pull), submittedAt: at };
    this.reviews.push(review);
    const target = parent ? { path: parent.path, line: parent.line, startLine: parent.startLine, diffHunk: parent.diffHunk } : p;
    return this.pushReviewComment(pull, review.id, p.author, { ...target, body: p.body }, parent, at);
  }

  private pushReviewComment(
    pull: FakePull,
    reviewId: number,
    author: string,
    c: { path: string; line?: number | null; startLine?: number | null; body: string; diffHunk?: string },
    parent: FakeReviewComment | null,
    at: string,
  ): FakeReviewComment {
    const line = c.line ?? null;
    const comment: FakeReviewComment = {
      id: this.nextIds.reviewComment++,
      pullNumber: pull.number,
      reviewId,
      author,
      path: c.path,
      line,
      startLine: c.startLine ?? null,
      side: 'RIGHT',
      body: c.body,
      diffHunk: c.diffHunk ?? `@@ -${line ?? 1},1 +${line ?? 1},1 @@`,
      commitId: this.pullHeadSha(pull),
      inReplyTo: parent ? parent.inReplyTo ?? parent.id : null,
      createdAt: at,
      updatedAt: at,
    };
    this.reviewComments.push(comment);
    return comment;
  }

  private pullHeadSha(pull: FakePull): string {
    return (this.opts.gitDir && pull.state === 'open' ? this.branchSha(pull.head) : null) ?? pull.headSha;
  }

  addWorkflowRun(p: Partial<Omit<FakeWorkflowRun, 'createdAt' | 'updatedAt'>> & { headSha: string; createdAt?: string; updatedAt?: string }): FakeWorkflowRun {
    const createdAt = p.createdAt ?? iso(this.now());
    const id = p.id ?? this.nextIds.run++;
    const run: FakeWorkflowRun = {
      id,
      name: p.name ?? 'CI',
      workflowId: p.workflowId ?? 161_335,
      path: p.path ?? '.github/workflows/ci.yml',
      runNumber: p.runNumber ?? this.workflowRuns.length + 1,
      runAttempt: p.runAttempt ?? 1,
      event: p.event ?? 'push',
      status: p.status ?? 'completed',
      conclusion: p.conclusion === undefined ? 'failure' : p.conclusion,
      headBranch: p.headBranch ?? this.repo.defaultBranch,
      headSha: p.headSha,
      displayTitle: p.displayTitle ?? 'Update code',
      actor: p.actor ?? this.repo.owner,
      pullRequests: [...(p.pullRequests ?? [])],
      createdAt,
      updatedAt: p.updatedAt ?? createdAt,
    };
    this.addUser(run.actor);
    this.workflowRuns.push(run);
    return run;
  }

  addJob(p: Partial<FakeJob> & { runId: number; name: string; log?: string }): FakeJob {
    if (!this.workflowRuns.some((r) => r.id === p.runId)) throw new Error(`fake-github: no workflow run ${p.runId}`);
    const startedAt = p.startedAt ?? iso(this.now());
    const status = p.status ?? 'completed';
    const job: FakeJob = {
      id: p.id ?? this.nextIds.job++,
      runId: p.runId,
      name: p.name,
      status,
      conclusion: p.conclusion === undefined ? (status === 'completed' ? 'failure' : null) : p.conclusion,
      steps: p.steps ?? [
        { name: 'Set up job', status: 'completed', conclusion: 'success', number: 1 },
        { name: 'Run tests', status: 'completed', conclusion: 'failure', number: 2 },
      ],
      startedAt,
      completedAt: p.completedAt === undefined ? (status === 'completed' ? startedAt : null) : p.completedAt,
    };
    this.jobs.push(job);
    if (p.log !== undefined) this.setJobLog(job.id, p.log);
    return job;
  }

  setJobLog(jobId: number, text: string): void {
    this.logs.set(jobId, text);
  }

  /** A file served by the contents API (`ref` defaults to the default branch). */
  setFile(path: string, content: string, ref = this.repo.defaultBranch): void {
    let tree = this.files.get(ref);
    if (!tree) this.files.set(ref, (tree = new Map()));
    tree.set(path.replace(/^\/+/, ''), content);
  }

  /** Makes the token read-only (true) or writable again (false); see `FakeGitHubOptions.readOnly`. */
  setReadOnly(readOnly: boolean): void {
    this.opts.readOnly = readOnly;
  }

  /** Called and awaited before each request is answered (see the header). */
  onRequest: ((request: { method: string; path: string }) => void | Promise<void>) | null = null;

  failNext(fault: FaultSpec): void {
    this.faults.push({ ...fault, remaining: fault.times ?? 1 });
  }

  // ------------------------------------------------------------------------ plumbing

  private takeNumber(requested?: number): number {
    if (requested !== undefined) {
      if (this.findIssueOrPull(requested)) throw new Error(`fake-github: #${requested} already exists`);
      this.nextNumber = Math.max(this.nextNumber, requested + 1);
      return requested;
    }
    return this.nextNumber++;
  }

  private findIssueOrPull(number: number): { issue?: FakeIssue; pull?: FakePull } | null {
    const issue = this.issues.find((i) => i.number === number);
    if (issue) return { issue };
    const pull = this.pulls.find((p) => p.number === number);
    return pull ? { pull } : null;
  }

  private branchSha(branch: string): string | null {
    if (!this.opts.gitDir) return null;
    try {
      return execFileSync('git', ['--git-dir', this.opts.gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
    } catch {
      return null;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v ?? '']));
    let body: unknown;
    let bodyIsJson = false;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
        bodyIsJson = true;
      } catch {
        body = rawBody;
      }
    }
    const record: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body, rawBody, status: 0 };
    this.requests.push(record);
    await this.onRequest?.({ method, path: url.pathname });
    const send = (reply: Reply): void => {
      record.status = reply.status;
      const base: Record<string, string> = {
        'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
        'x-github-api-version-selected': '2022-11-28',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-used': '1',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        'x-ratelimit-resource': 'core',
      };
      if (reply.text !== undefined) {
        res.writeHead(reply.status, { ...base, 'content-type': 'text/plain; charset=utf-8', ...reply.headers });
        res.end(reply.text);
      } else if (reply.body === undefined) {
        res.writeHead(reply.status, { ...base, ...reply.headers });
        res.end();
      } else {
        res.writeHead(reply.status, { ...base, 'content-type': 'application/json; charset=utf-8', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      }
    };
    const violation = (message: string): void => {
      this.violations.push(message);
      send({ status: 500, body: { message: `fake-github contract violation: ${message}`, documentation_url: DOCS } });
    };

    // the log download target: a signed URL, no token needed
    const logMatch = /^\/_logs\/(\d+)$/.exec(url.pathname);
    if (logMatch && method === 'GET') {
      const jobId = Number(logMatch[1]);
      const text = this.logTokens.get(url.searchParams.get('sig') ?? '') === jobId ? this.logs.get(jobId) : undefined;
      send(text === undefined ? { status: 404, text: 'BlobNotFound' } : { status: 200, text });
      return;
    }

    // authentication
    const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(headers.authorization ?? '');
    if (!auth) {
      send({ status: 401, body: { message: 'Requires authentication', documentation_url: DOCS, status: '401' } });
      return;
    }
    if (this.opts.token !== undefined && auth[1] !== this.opts.token) {
      send({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } });
      return;
    }

    // routing
    const c = loadContract();
    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of c.routes) {
      match = candidate.regex.exec(url.pathname);
      if (match && candidate.method === method) {
        route = candidate;
        break;
      }
    }
    if (!route || !match) {
      this.violations.push(`${method} ${url.pathname}: no such operation in the trimmed GitHub OpenAPI description`);
      send({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
      return;
    }
    const operation = route.operation;
    const opName = `${method} ${route.template}`;
    const params: Record<string, unknown> = {};
    route.paramNames.forEach((name, index) => {
      try {
        params[name] = decodeURIComponent(match![index + 1]);
      } catch {
        params[name] = match![index + 1];
      }
    });

    // request validation
    const problems: string[] = [];
    const declared = new Set<string>();
    for (const paramRef of (operation.parameters ?? []) as SpecNode[]) {
      const param = resolve(c.spec, paramRef);
      const where = param.in === 'path' ? 'path' : param.in === 'query' ? 'query' : null;
      if (!where) continue;
      if (where === 'query') declared.add(param.name);
      const raw = where === 'path' ? (params[param.name] as string | undefined) : url.searchParams.get(param.name) ?? undefined;
      if (raw === undefined || (where === 'path' && raw === '' && param.name !== 'path')) {
        if (param.required) problems.push(`${where} parameter ${param.name} is required`);
        continue;
      }
      const value = coerceParam(raw, param.schema);
      if (where === 'path') params[param.name] = value;
      const check = validator(c, `${operation.operationId} param ${param.name}`, param.schema ?? {});
      if (!check(value)) problems.push(describeErrors(check.errors, `${where} parameter ${param.name}`));
    }
    for (const name of url.searchParams.keys()) {
      if (!declared.has(name)) problems.push(`unknown query parameter ${name}`);
    }
    const requestBody = operation.requestBody ? resolve(c.spec, operation.requestBody) : null;
    if (requestBody) {
      const media = requestBody.content?.['application/json'];
      if (rawBody.length === 0) {
        if (requestBody.required) problems.push('a JSON request body is required');
      } else if (!/^application\/json\b/i.test(headers['content-type'] ?? '')) {
        problems.push(`request content-type must be application/json, got ${headers['content-type'] ?? 'none'}`);
      } else if (!bodyIsJson) {
        problems.push('request body is not valid JSON');
      } else if (media?.schema) {
        const check = validator(c, `${operation.operationId} request`, media.schema, true);
        if (!check(body)) problems.push(describeErrors(check.errors, 'body'));
      }
    } else if (rawBody.length > 0) {
      problems.push('this operation takes no request body');
    }
    if (problems.length > 0) {
      violation(`${opName}: request does not match the OpenAPI description: ${problems.join('; ')}`);
      return;
    }

    // a read-only token (contents: read): GitHub refuses every write with 403
    if (this.opts.readOnly && method !== 'GET' && method !== 'HEAD') {
      this.writeAttempts.push(record);
      send({ status: 403, body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' } });
      return;
    }

    // fault injection
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 &&
        (!f.method || f.method.toUpperCase() === method) &&
        (typeof f.path === 'string' ? f.path === url.pathname || f.path === route!.template : f.path.test(url.pathname)),
    );
    if (fault) {
      fault.remaining -= 1;
      if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
      const faultBody = fault.body ?? { message: STATUS_CODES[fault.status] ?? 'Error', documentation_url: DOCS };
      send(typeof faultBody === 'string' ? { status: fault.status, text: faultBody, headers: fault.headers } : { status: fault.status, body: faultBody, headers: fault.headers });
      return;
    }

    // teams (not under the repository)
    if (operation.operationId === 'teams/get-membership-for-user-in-org') {
      const members = this.teamMembers.get(`${String(params.org)}/${String(params.team_slug)}`.toLowerCase());
      if (!members || !members.has(String(params.username).toLowerCase())) {
        send({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
        return;
      }
      const url = `${this.url}/organizations/1/team/1/memberships/${String(params.username)}`;
      send({ status: 200, body: { url, role: 'member', state: 'active' } });
      return;
    }

    // the repository itself
    if (
      String(params.owner).toLowerCase() !== this.repo.owner.toLowerCase() ||
      String(params.repo).toLowerCase() !== this.repo.name.toLowerCase()
    ) {
      send({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
      return;
    }

    let reply: Reply;
    try {
      reply = this.dispatch(operation.operationId as string, params, url, body as Obj, headers);
    } catch (error) {
      if (error instanceof HttpError) reply = error.reply;
      else throw error;
    }

    // response validation
    if (reply.text === undefined) {
      const problem = this.checkResponse(c, operation, reply);
      if (problem) {
        violation(`${opName}: response ${reply.status} does not match the OpenAPI description: ${problem}`);
        return;
      }
    }
    send(reply);
  }

  private checkResponse(c: Contract, operation: SpecNode, reply: Reply): string | null {
    const documented = operation.responses?.[String(reply.status)] ?? operation.responses?.default;
    if (!documented) {
      // GitHub answers undocumented errors (404 on PATCH comment...); an undocumented success is a bug here
      return reply.status < 400 ? `status ${reply.status} is not documented for ${operation.operationId as string}` : null;
    }
    const response = resolve(c.spec, documented);
    const media = response.content?.['application/json'];
    if (!media?.schema) return reply.body === undefined ? null : 'the description documents no JSON body for this status';
    if (reply.body === undefined) return 'a JSON body is documented but none was sent';
    const check = validator(c, `${operation.operationId as string} response ${reply.status}`, media.schema);
    return check(reply.body) ? null : describeErrors(check.errors, 'body');
  }

  private dispatch(operationId: string, params: Record<string, unknown>, url: URL, body: Obj, headers: Record<string, string>): Reply {
    const q = url.searchParams;
    switch (operationId) {
      case 'repos/get':
        return { status: 200, body: this.repoJson(true) };
      case 'repos/get-collaborator-permission-level':
        return this.permissionReply(String(params.username));
      case 'issues/get': {
        const found = this.findIssueOrPull(params.issue_number as number);
        if (!found) throw notFound('issues/issues#get-an-issue');
        return { status: 200, body: found.issue ? this.issueJson(found.issue) : this.pullAsIssueJson(found.pull!) };
      }
      case 'issues/list-comments': {
        const number = params.issue_number as number;
        if (!this.findIssueOrPull(number)) throw notFound('issues/comments#list-issue-comments');
        const since = q.get('since');
        const list = this.comments
          .filter((cm) => cm.issueNumber === number && (!since || Date.parse(cm.updatedAt) >= Date.parse(since)))
          .sort((a, b) => a.id - b.id)
          .map((cm) => this.commentJson(cm));
        return this.paginate(url, list);
      }
      case 'issues/create-comment': {
        const number = params.issue_number as number;
        if (!this.findIssueOrPull(number)) throw notFound('issues/comments#create-an-issue-comment');
        const text = String(body.body);
        this.checkBody(text, 'IssueComment', 'issues/comments#create-an-issue-comment');
        const created = iso(this.now());
        const comment: FakeComment = { id: this.nextIds.comment++, issueNumber: number, body: text, author: this.botLogin, createdAt: created, updatedAt: created };
        this.comments.push(comment);
        const json = this.commentJson(comment);
        return { status: 201, body: json, headers: { location: String(json.url) } };
      }
      case 'issues/update-comment': {
        const comment = this.comments.find((cm) => cm.id === params.comment_id);
        if (!comment) throw notFound('issues/comments#update-an-issue-comment');
        const text = String(body.body);
        this.checkBody(text, 'IssueComment', 'issues/comments#update-an-issue-comment');
        comment.body = text;
        comment.updatedAt = iso(this.now());
        return { status: 200, body: this.commentJson(comment) };
      }
      case 'pulls/list': {
        const state = q.get('state') ?? 'open';
        const base = q.get('base');
        const head = q.get('head');
        let headFilter: { owner: string; branch: string } | null = null;
        if (head && head.includes(':')) {
          const [owner, ...rest] = head.split(':');
          headFilter = { owner: owner.toLowerCase(), branch: rest.join(':') };
        }
        const direction = q.get('direction') ?? 'desc';
        const list = this.pulls
          .filter((p) => state === 'all' || p.state === state)
          .filter((p) => !base || p.base === base)
          .filter((p) => !headFilter || (headFilter.owner === this.repo.owner.toLowerCase() && headFilter.branch === p.head))
          .sort((a, b) => (direction === 'asc' ? a.number - b.number : b.number - a.number))
          .map((p) => this.pullJson(p));
        return this.paginate(url, list);
      }
      case 'pulls/create':
        return this.createPull(body);
      case 'pulls/get': {
        const pull = this.pulls.find((p) => p.number === params.pull_number);
        if (!pull) throw notFound('pulls/pulls#get-a-pull-request');
        return { status: 200, body: this.pullJson(pull) };
      }
      case 'pulls/update': {
        const pull = this.pulls.find((p) => p.number === params.pull_number);
        if (!pull) throw notFound('pulls/pulls#update-a-pull-request');
        if (typeof body?.body === 'string') this.checkBody(body.body, 'PullRequest', 'pulls/pulls#update-a-pull-request');
        if (typeof body?.base === 'string' && this.opts.gitDir && !this.branchSha(body.base)) {
          throw validationFailed('pulls/pulls#update-a-pull-request', [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
        }
        if (typeof body?.title === 'string') pull.title = body.title;
        if (typeof body?.body === 'string') pull.body = body.body;
        if (typeof body?.base === 'string') pull.base = body.base;
        if (typeof body?.maintainer_can_modify === 'boolean') pull.maintainerCanModify = body.maintainer_can_modify;
        if (body?.state === 'open' || body?.state === 'closed') {
          pull.closedAt = body.state === 'closed' ? iso(this.now()) : null;
          pull.state = body.state;
        }
        pull.updatedAt = iso(this.now());
        return { status: 200, body: this.pullJson(pull) };
      }
      case 'pulls/get-review': {
        const review = this.reviews.find((r) => r.id === params.review_id && r.pullNumber === params.pull_number);
        if (!review) throw notFound('pulls/reviews#get-a-review-for-a-pull-request');
        return { status: 200, body: this.reviewJson(review) };
      }
      case 'pulls/list-comments-for-review': {
        const review = this.reviews.find((r) => r.id === params.review_id && r.pullNumber === params.pull_number);
        if (!review) throw notFound('pulls/reviews#list-comments-for-a-pull-request-review');
        const list = this.reviewComments.filter((c) => c.reviewId === review.id).sort((a, b) => a.id - b.id).map((c) => this.reviewCommentJson(c, 'review-comment'));
        return this.paginate(url, list);
      }
      case 'pulls/get-review-comment': {
        const comment = this.reviewComments.find((c) => c.id === params.comment_id);
        if (!comment) throw notFound('pulls/comments#get-a-review-comment-for-a-pull-request');
        return { status: 200, body: this.reviewCommentJson(comment, 'pull-request-review-comment') };
      }
      case 'pulls/create-reply-for-review-comment': {
        const pull = this.pulls.find((p) => p.number === params.pull_number);
        const parent = this.reviewComments.find((c) => c.id === params.comment_id && c.pullNumber === params.pull_number);
        if (!pull || !parent) throw notFound('pulls/comments#create-a-reply-for-a-review-comment');
        const text = String(body.body);
        this.checkBody(text, 'PullRequestReviewComment', 'pulls/comments#create-a-reply-for-a-review-comment');
        const reply = this.addReviewComment({ pullNumber: pull.number, author: this.botLogin, path: parent.path, body: text, inReplyTo: parent.id });
        const json = this.reviewCommentJson(reply, 'pull-request-review-comment');
        return { status: 201, body: json, headers: { location: String(json.url) } };
      }
      case 'repos/get-content':
        return this.contentReply(String(params.path ?? ''), q.get('ref') ?? this.repo.defaultBranch, headers.accept ?? '');
      case 'actions/list-workflow-runs-for-repo': {
        const list = this.workflowRuns
          .filter((r) => !q.get('branch') || r.headBranch === q.get('branch'))
          .filter((r) => !q.get('event') || r.event === q.get('event'))
          .filter((r) => !q.get('head_sha') || r.headSha === q.get('head_sha'))
          .filter((r) => !q.get('actor') || r.actor === q.get('actor'))
          .filter((r) => !q.get('status') || r.status === q.get('status') || r.conclusion === q.get('status'))
          .sort((a, b) => b.id - a.id)
          .map((r) => this.runJson(r, q.get('exclude_pull_requests') === 'true'));
        return this.paginate(url, list, 'workflow_runs');
      }
      case 'actions/get-workflow-run': {
        const run = this.workflowRuns.find((r) => r.id === params.run_id);
        if (!run) throw notFound('actions/workflow-runs#get-a-workflow-run');
        return { status: 200, body: this.runJson(run, q.get('exclude_pull_requests') === 'true') };
      }
      case 'actions/list-jobs-for-workflow-run': {
        const run = this.workflowRuns.find((r) => r.id === params.run_id);
        if (!run) throw notFound('actions/workflow-jobs#list-jobs-for-a-workflow-run');
        const list = this.jobs.filter((j) => j.runId === run.id).sort((a, b) => a.id - b.id).map((j) => this.jobJson(j, run));
        return this.paginate(url, list, 'jobs');
      }
      case 'actions/download-job-logs-for-workflow-run': {
        const job = this.jobs.find((j) => j.id === params.job_id);
        if (!job || !this.logs.has(job.id)) throw notFound('actions/workflow-jobs#download-job-logs-for-a-workflow-run');
        const sig = randomBytes(12).toString('hex');
        this.logTokens.set(sig, job.id);
        return { status: 302, headers: { location: `${this.url}/_logs/${job.id}?sig=${sig}` } };
      }
      default:
        throw new Error(`fake-github has no handler for ${operationId}`);
    }
  }

  private checkBody(text: string, resource: string, doc: string): void {
    if (text.trim() === '' && resource === 'IssueComment') {
      throw validationFailed(doc, [{ resource, code: 'missing_field', field: 'body' }]);
    }
    if (text.length > MAX_BODY) {
      throw validationFailed(doc, [{ resource, code: 'custom', field: 'body', message: `body is too long (maximum is ${MAX_BODY} characters)` }]);
    }
  }

  private permissionReply(username: string): Reply {
    const user = this.users.get(username.toLowerCase());
    if (!user) throw notFound('collaborators/collaborators#get-repository-permissions-for-a-user');
    const role = this.permissions.get(username.toLowerCase()) ?? (this.repo.private ? 'none' : 'read');
    const collaborator = this.permissions.has(username.toLowerCase());
    return {
      status: 200,
      body: {
        permission: collaborator ? LEGACY_PERMISSION[role] : role,
        role_name: role,
        user: {
          ...this.userJson(user.login),
          permissions: { admin: role === 'admin', maintain: role === 'admin' || role === 'maintain', push: ['admin', 'maintain', 'write'].includes(role), triage: role !== 'read' && role !== 'none', pull: role !== 'none' },
          role_name: role,
        },
      },
    };
  }

  private createPull(body: Obj): Reply {
    const doc = 'pulls/pulls#create-a-pull-request';
    if (body.issue !== undefined) {
      this.violations.push('POST /repos/{owner}/{repo}/pulls: converting an issue (`issue`) is not supported by the fake');
      throw new HttpError({ status: 500, body: { message: 'fake-github: `issue` is not supported' } });
    }
    if (typeof body.title !== 'string' || body.title.trim() === '') {
      throw validationFailed(doc, [{ resource: 'PullRequest', code: 'missing_field', field: 'title' }]);
    }
    let head = String(body.head);
    if (head.includes(':')) {
      const [owner, ...rest] = head.split(':');
      if (owner.toLowerCase() !== this.repo.owner.toLowerCase()) {
        throw validationFailed(doc, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
      }
      head = rest.join(':');
    }
    const base = String(body.base);
    const headSha = this.opts.gitDir ? this.branchSha(head) : sha1(`head:${head}:${this.pulls.length}`);
    const baseSha = this.opts.gitDir ? this.branchSha(base) : sha1(`base:${base}`);
    if (!baseSha) throw validationFailed(doc, [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    if (!headSha) throw validationFailed(doc, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    if (head === base || headSha === baseSha) {
      throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }]);
    }
    if (this.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
      throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${this.repo.owner}:${head}.` }]);
    }
    if (typeof body.body === 'string') this.checkBody(body.body, 'PullRequest', doc);
    if (body.draft === true && this.opts.draftPullRequests === false) {
      throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: 'Draft pull requests are not supported in this repository.' }]);
    }
    const created = iso(this.now());
    const pull: FakePull = {
      id: this.nextIds.pull++,
      number: this.nextNumber++,
      title: body.title,
      body: typeof body.body === 'string' ? body.body : null,
      head,
      headSha,
      base,
      baseSha,
      state: 'open',
      draft: body.draft === true,
      merged: false,
      author: this.botLogin,
      maintainerCanModify: body.maintainer_can_modify === true,
      createdAt: created,
      updatedAt: created,
      closedAt: null,
    };
    this.pulls.push(pull);
    const json = this.pullJson(pull);
    return { status: 201, body: json, headers: { location: String(json.url) } };
  }

  private contentReply(path: string, ref: string, accept: string): Reply {
    const doc = 'repos/contents#get-repository-content';
    const tree = this.files.get(ref);
    if (!tree && ref !== this.repo.defaultBranch) {
      throw new HttpError({ status: 404, body: { message: `No commit found for the ref ${ref}`, documentation_url: `${DOCS}/${doc}`, status: '404' } });
    }
    const clean = path.replace(/^\/+|\/+$/g, '');
    const content = tree?.get(clean);
    const api = this.apiRepoUrl();
    const entry = (p: string, type: 'file' | 'dir', text?: string): Obj => {
      const sha = type === 'file' ? sha1(`blob ${Buffer.byteLength(text ?? '')}\0${text ?? ''}`) : sha1(`tree:${p}`);
      const self = `${api}/contents/${p}?ref=${encodeURIComponent(ref)}`;
      const git = `${api}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
      const html = `https://github.com/${this.repo.fullName}/${type === 'file' ? 'blob' : 'tree'}/${encodeURIComponent(ref)}/${p}`;
      return {
        type,
        size: type === 'file' ? Buffer.byteLength(text ?? '') : 0,
        name: p.split('/').pop() ?? p,
        path: p,
        sha,
        url: self,
        git_url: git,
        html_url: html,
        download_url: type === 'file' ? `https://raw.githubusercontent.com/${this.repo.fullName}/${encodeURIComponent(ref)}/${p}` : null,
        _links: { self, git, html },
      };
    };
    if (content !== undefined) {
      if (/application\/vnd\.github(\.v3)?\.raw/i.test(accept)) return { status: 200, text: content };
      const encoded = Buffer.from(content, 'utf8').toString('base64').replace(/(.{60})/g, '$1\n');
      return { status: 200, body: { ...entry(clean, 'file', content), content: encoded, encoding: 'base64' } };
    }
    const prefix = clean === '' ? '' : `${clean}/`;
    const children = new Map<string, Obj>();
    for (const [p, text] of tree ?? []) {
      if (!p.startsWith(prefix)) continue;
      const [first, ...rest] = p.slice(prefix.length).split('/');
      const childPath = `${prefix}${first}`;
      if (!children.has(childPath)) children.set(childPath, rest.length > 0 ? entry(childPath, 'dir') : entry(childPath, 'file', text));
    }
    if (children.size === 0) throw notFound(doc);
    return { status: 200, body: [...children.values()].sort((a, b) => String(a.name).localeCompare(String(b.name))) };
  }

  private paginate(url: URL, list: unknown[], wrapKey?: string): Reply {
    const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(list.length / perPage), 1);
    const items = list.slice((page - 1) * perPage, page * perPage);
    const link = (p: number, rel: string): string => {
      const next = new URL(url.pathname + url.search, this.url);
      next.searchParams.set('page', String(p));
      next.searchParams.set('per_page', String(perPage));
      return `<${next.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
    const headers = links.length > 0 ? { link: links.join(', ') } : undefined;
    return { status: 200, body: wrapKey ? { total_count: list.length, [wrapKey]: items } : items, headers };
  }

  // --------------------------------------------------------------------- JSON shapes

  private apiRepoUrl(): string {
    return `${this.url}/repos/${this.repo.fullName}`;
  }

  private userJson(login: string): Obj {
    const user = this.users.get(login.toLowerCase()) ?? this.addUser(login);
    const api = `${this.url}/users/${encodeURIComponent(user.login)}`;
    const bot = user.type === 'Bot';
    return {
      login: user.login,
      id: user.id,
      node_id: nodeId(bot ? 'BOT' : user.type === 'Organization' ? 'O' : 'U', user.id),
      avatar_url: bot ? `https://avatars.githubusercontent.com/in/15368?v=4` : `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
      gravatar_id: '',
      url: api,
      html_url: bot ? `https://github.com/apps/${encodeURIComponent(user.login.replace(/\[bot\]$/, ''))}` : `https://github.com/${encodeURIComponent(user.login)}`,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: user.type,
      user_view_type: 'public',
      site_admin: false,
    };
  }

  private appJson(): Obj | null {
    if (this.botLogin !== 'github-actions[bot]') return null;
    return {
      id: 15368,
      slug: 'github-actions',
      client_id: 'Iv1.05c79e9ad1f6bdfa',
      node_id: 'MDM6QXBwMTUzNjg=',
      owner: { ...this.userJson('github'), type: 'Organization' },
      name: 'GitHub Actions',
      description: 'Automate your workflow from idea to production',
      external_url: 'https://help.github.com/en/actions',
      html_url: 'https://github.com/apps/github-actions',
      created_at: '2018-07-30T09:30:17Z',
      updated_at: '2024-04-10T20:33:16Z',
      permissions: { actions: 'write', contents: 'write', issues: 'write', metadata: 'read', pull_requests: 'write' },
      events: ['check_run', 'check_suite', 'issue_comment', 'issues', 'pull_request', 'push', 'workflow_run'],
    };
  }

  private association(login: string): string {
    const key = login.toLowerCase();
    if (this.repo.ownerType === 'User' && key === this.repo.owner.toLowerCase()) return 'OWNER';
    if (this.permissions.has(key)) return this.repo.ownerType === 'Organization' ? 'MEMBER' : 'COLLABORATOR';
    if (this.pulls.some((p) => p.merged && p.author.toLowerCase() === key)) return 'CONTRIBUTOR';
    return 'NONE';
  }

  private reactions(url: string): Obj {
    return { url: `${url}/reactions`, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 };
  }

  private labelJson(name: string): Obj {
    let id = this.labelIds.get(name);
    if (id === undefined) this.labelIds.set(name, (id = this.nextIds.label++));
    return { id, node_id: nodeId('LA', id), url: `${this.apiRepoUrl()}/labels/${encodeURIComponent(name)}`, name, description: '', color: 'ededed', default: false };
  }

  private repoJson(full: boolean): Obj {
    const r = this.repo;
    const api = this.apiRepoUrl();
    const html = `https://github.com/${r.fullName}`;
    const openIssues = this.issues.filter((i) => i.state === 'open').length + this.pulls.filter((p) => p.state === 'open').length;
    const json: Obj = {
      id: r.id,
      node_id: nodeId('R', r.id),
      name: r.name,
      full_name: r.fullName,
      private: r.private,
      owner: this.userJson(r.owner),
      html_url: html,
      description: r.description,
      fork: false,
      url: api,
      archive_url: `${api}/{archive_format}{/ref}`,
      assignees_url: `${api}/assignees{/user}`,
      blobs_url: `${api}/git/blobs{/sha}`,
      branches_url: `${api}/branches{/branch}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      comments_url: `${api}/comments{/number}`,
      commits_url: `${api}/commits{/sha}`,
      compare_url: `${api}/compare/{base}...{head}`,
      contents_url: `${api}/contents/{+path}`,
      contributors_url: `${api}/contributors`,
      deployments_url: `${api}/deployments`,
      downloads_url: `${api}/downloads`,
      events_url: `${api}/events`,
      forks_url: `${api}/forks`,
      git_commits_url: `${api}/git/commits{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_url: `git://github.com/${r.fullName}.git`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      issue_events_url: `${api}/issues/events{/number}`,
      issues_url: `${api}/issues{/number}`,
      keys_url: `${api}/keys{/key_id}`,
      labels_url: `${api}/labels{/name}`,
      languages_url: `${api}/languages`,
      merges_url: `${api}/merges`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      pulls_url: `${api}/pulls{/number}`,
      releases_url: `${api}/releases{/id}`,
      ssh_url: `git@github.com:${r.fullName}.git`,
      stargazers_url: `${api}/stargazers`,
      statuses_url: `${api}/statuses/{sha}`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      tags_url: `${api}/tags`,
      teams_url: `${api}/teams`,
      trees_url: `${api}/git/trees{/sha}`,
      clone_url: `${html}.git`,
      mirror_url: null,
      hooks_url: `${api}/hooks`,
      svn_url: html,
      homepage: null,
      language: 'TypeScript',
      forks_count: 0,
      forks: 0,
      stargazers_count: 0,
      watchers_count: 0,
      watchers: 0,
      size: 128,
      default_branch: r.defaultBranch,
      open_issues_count: openIssues,
      open_issues: openIssues,
      is_template: false,
      topics: [],
      has_issues: true,
      has_projects: true,
      has_wiki: true,
      has_pages: false,
      has_downloads: true,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: r.private ? 'private' : 'public',
      pushed_at: this.createdAt,
      created_at: this.createdAt,
      updated_at: this.createdAt,
      allow_forking: !r.private,
      web_commit_signoff_required: false,
      license: null,
    };
    if (full) {
      Object.assign(json, {
        permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
        allow_rebase_merge: true,
        allow_squash_merge: true,
        allow_merge_commit: true,
        allow_auto_merge: false,
        delete_branch_on_merge: false,
        allow_update_branch: false,
        use_squash_pr_title_as_default: false,
        network_count: 0,
        subscribers_count: 0,
        ...(r.ownerType === 'Organization' ? { organization: this.userJson(r.owner) } : {}),
      });
    }
    return json;
  }

  private issueJson(issue: FakeIssue): Obj {
    const api = `${this.apiRepoUrl()}/issues/${issue.number}`;
    return {
      id: issue.id,
      node_id: nodeId('I', issue.id),
      url: api,
      repository_url: this.apiRepoUrl(),
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: `https://github.com/${this.repo.fullName}/issues/${issue.number}`,
      number: issue.number,
      state: issue.state,
      state_reason: issue.state === 'closed' ? 'completed' : null,
      title: issue.title,
      body: issue.body,
      user: this.userJson(issue.author),
      labels: issue.labels.map((l) => this.labelJson(l)),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: issue.locked,
      active_lock_reason: null,
      comments: this.comments.filter((c) => c.issueNumber === issue.number).length,
      closed_at: issue.closedAt,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_by: null,
      author_association: this.association(issue.author),
      reactions: this.reactions(api),
      timeline_url: `${api}/timeline`,
      performed_via_github_app: null,
    };
  }

  private pullAsIssueJson(pull: FakePull): Obj {
    const api = `${this.apiRepoUrl()}/issues/${pull.number}`;
    const html = `https://github.com/${this.repo.fullName}/pull/${pull.number}`;
    return {
      id: pull.id + 100_000_000,
      node_id: nodeId('PR', pull.id),
      url: api,
      repository_url: this.apiRepoUrl(),
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: html,
      number: pull.number,
      state: pull.state,
      state_reason: null,
      title: pull.title,
      body: pull.body,
      user: this.userJson(pull.author),
      labels: [],
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.comments.filter((c) => c.issueNumber === pull.number).length,
      closed_at: pull.closedAt,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      author_association: this.association(pull.author),
      draft: pull.draft,
      pull_request: {
        url: `${this.apiRepoUrl()}/pulls/${pull.number}`,
        html_url: html,
        diff_url: `${html}.diff`,
        patch_url: `${html}.patch`,
        merged_at: null,
      },
      reactions: this.reactions(api),
      timeline_url: `${api}/timeline`,
      performed_via_github_app: null,
    };
  }

  private commentJson(comment: FakeComment): Obj {
    const isPull = this.pulls.some((p) => p.number === comment.issueNumber);
    const url = `${this.apiRepoUrl()}/issues/comments/${comment.id}`;
    return {
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      url,
      html_url: `https://github.com/${this.repo.fullName}/${isPull ? 'pull' : 'issues'}/${comment.issueNumber}#issuecomment-${comment.id}`,
      body: comment.body,
      user: this.userJson(comment.author),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      issue_url: `${this.apiRepoUrl()}/issues/${comment.issueNumber}`,
      author_association: this.association(comment.author),
      performed_via_github_app: comment.author === this.botLogin ? this.appJson() : null,
      reactions: this.reactions(url),
    };
  }

  private pullJson(pull: FakePull): Obj {
    const api = `${this.apiRepoUrl()}/pulls/${pull.number}`;
    const issueApi = `${this.apiRepoUrl()}/issues/${pull.number}`;
    const html = `https://github.com/${this.repo.fullName}/pull/${pull.number}`;
    const headSha = (this.opts.gitDir && pull.state === 'open' ? this.branchSha(pull.head) : null) ?? pull.headSha;
    const ownerUser = this.userJson(this.repo.owner);
    const repo = this.repoJson(false);
    const statuses = `${this.apiRepoUrl()}/statuses/${headSha}`;
    return {
      url: api,
      id: pull.id,
      node_id: nodeId('PR', pull.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueApi,
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: `${this.apiRepoUrl()}/pulls/comments{/number}`,
      comments_url: `${issueApi}/comments`,
      statuses_url: statuses,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      user: this.userJson(pull.author),
      body: pull.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: { label: `${this.repo.owner}:${pull.head}`, ref: pull.head, sha: headSha, user: ownerUser, repo },
      base: { label: `${this.repo.owner}:${pull.base}`, ref: pull.base, sha: pull.baseSha, user: ownerUser, repo },
      _links: {
        self: { href: api },
        html: { href: html },
        issue: { href: issueApi },
        comments: { href: `${issueApi}/comments` },
        review_comments: { href: `${api}/comments` },
        review_comment: { href: `${this.apiRepoUrl()}/pulls/comments{/number}` },
        commits: { href: `${api}/commits` },
        statuses: { href: statuses },
      },
      author_association: this.association(pull.author),
      auto_merge: null,
      draft: pull.draft,
      merged: pull.merged,
      mergeable: null,
      rebaseable: null,
      mergeable_state: 'unknown',
      merged_by: null,
      comments: this.comments.filter((c) => c.issueNumber === pull.number).length,
      review_comments: this.reviewComments.filter((c) => c.pullNumber === pull.number).length,
      maintainer_can_modify: pull.maintainerCanModify,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: 0,
    };
  }

  private reviewJson(review: FakeReview): Obj {
    const pullApi = `${this.apiRepoUrl()}/pulls/${review.pullNumber}`;
    const html = `https://github.com/${this.repo.fullName}/pull/${review.pullNumber}#pullrequestreview-${review.id}`;
    return {
      id: review.id,
      node_id: nodeId('PRR', review.id),
      user: this.userJson(review.author),
      body: review.body,
      state: review.state,
      html_url: html,
      pull_request_url: pullApi,
      _links: { html: { href: html }, pull_request: { href: pullApi } },
      ...(review.submittedAt ? { submitted_at: review.submittedAt } : {}),
      commit_id: review.commitId,
      author_association: this.association(review.author),
    };
  }

  /** `review-comment` (listed under a review) and `pull-request-review-comment` (get, reply) share their shape. */
  private reviewCommentJson(c: FakeReviewComment, _schema: 'review-comment' | 'pull-request-review-comment'): Obj {
    const url = `${this.apiRepoUrl()}/pulls/comments/${c.id}`;
    const pullApi = `${this.apiRepoUrl()}/pulls/${c.pullNumber}`;
    const html = `https://github.com/${this.repo.fullName}/pull/${c.pullNumber}#discussion_r${c.id}`;
    return {
      url,
      pull_request_review_id: c.reviewId,
      id: c.id,
      node_id: nodeId('PRRC', c.id),
      diff_hunk: c.diffHunk,
      path: c.path,
      position: c.line ?? 1,
      original_position: c.line ?? 1,
      commit_id: c.commitId,
      original_commit_id: c.commitId,
      ...(c.inReplyTo !== null ? { in_reply_to_id: c.inReplyTo } : {}),
      user: this.userJson(c.author),
      body: c.body,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      html_url: html,
      pull_request_url: pullApi,
      author_association: this.association(c.author),
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullApi } },
      start_line: c.startLine,
      original_start_line: c.startLine,
      start_side: c.startLine === null ? null : c.side,
      line: c.line ?? undefined,
      original_line: c.line ?? undefined,
      side: c.side,
      subject_type: c.line === null ? 'file' : 'line',
      reactions: this.reactions(url),
    };
  }

  private runJson(run: FakeWorkflowRun, excludePullRequests: boolean): Obj {
    const api = `${this.apiRepoUrl()}/actions/runs/${run.id}`;
    const minimal = { id: this.repo.id, url: this.apiRepoUrl(), name: this.repo.name };
    const pullRequests = excludePullRequests
      ? []
      : run.pullRequests
          .map((n) => this.pulls.find((p) => p.number === n))
          .filter((p): p is FakePull => p !== undefined)
          .map((p) => ({
            id: p.id,
            number: p.number,
            url: `${this.apiRepoUrl()}/pulls/${p.number}`,
            head: { ref: p.head, sha: p.headSha, repo: minimal },
            base: { ref: p.base, sha: p.baseSha, repo: minimal },
          }));
    return {
      id: run.id,
      name: run.name,
      node_id: nodeId('WFR', run.id),
      head_branch: run.headBranch,
      head_sha: run.headSha,
      path: run.path,
      display_title: run.displayTitle,
      run_number: run.runNumber,
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflowId,
      check_suite_id: run.id + 1_000,
      check_suite_node_id: nodeId('CS', run.id + 1_000),
      url: api,
      html_url: `https://github.com/${this.repo.fullName}/actions/runs/${run.id}`,
      pull_requests: pullRequests,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      actor: this.userJson(run.actor),
      triggering_actor: this.userJson(run.actor),
      run_attempt: run.runAttempt,
      referenced_workflows: [],
      run_started_at: run.createdAt,
      jobs_url: `${api}/jobs`,
      logs_url: `${api}/logs`,
      check_suite_url: `${this.apiRepoUrl()}/check-suites/${run.id + 1_000}`,
      artifacts_url: `${api}/artifacts`,
      cancel_url: `${api}/cancel`,
      rerun_url: `${api}/rerun`,
      previous_attempt_url: null,
      workflow_url: `${this.apiRepoUrl()}/actions/workflows/${run.workflowId}`,
      head_commit: {
        id: run.headSha,
        tree_id: sha1(`tree:${run.headSha}`),
        message: run.displayTitle,
        timestamp: run.createdAt,
        author: { name: run.actor, email: `${run.actor}@users.noreply.github.com` },
        committer: { name: 'GitHub', email: 'noreply@github.com' },
      },
      repository: this.repoJson(false),
      head_repository: this.repoJson(false),
    };
  }

  private jobJson(job: FakeJob, run: FakeWorkflowRun): Obj {
    return {
      id: job.id,
      run_id: job.runId,
      workflow_name: run.name,
      head_branch: run.headBranch,
      run_url: `${this.apiRepoUrl()}/actions/runs/${run.id}`,
      run_attempt: run.runAttempt,
      node_id: nodeId('CR', job.id),
      head_sha: run.headSha,
      url: `${this.apiRepoUrl()}/actions/jobs/${job.id}`,
      html_url: `https://github.com/${this.repo.fullName}/actions/runs/${run.id}/job/${job.id}`,
      status: job.status,
      conclusion: job.conclusion,
      created_at: job.startedAt,
      started_at: job.startedAt,
      completed_at: job.completedAt,
      name: job.name,
      steps: job.steps.map((s) => ({ ...s, started_at: job.startedAt, completed_at: job.completedAt })),
      check_run_url: `${this.apiRepoUrl()}/check-runs/${job.id}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 1,
      runner_group_name: 'GitHub Actions',
    };
  }
}

/** Start a fake GitHub API on 127.0.0.1 (ephemeral port). Close it with `close()`. */
export async function startFakeGitHub(opts?: FakeGitHubOptions): Promise<FakeGitHub> {
  return new FakeGitHub(opts).listen();
}
