#!/usr/bin/env node
/**
 * Trims GitHub's published OpenAPI description (api.github.com, from the
 * @octokit/openapi devDependency) down to the operations agent-fix uses, plus every
 * component they reference transitively. The result is the contract the fake GitHub
 * server (test-support/fake-github.ts) validates every request and response against.
 *
 * Re-run after adding an operation to OPERATIONS below or upgrading @octokit/openapi:
 *
 *   node scripts/trim-openapi.mjs
 *
 * and commit test-support/fixtures/github-openapi.json. Prose (description, summary,
 * examples, externalDocs, x-* extensions) is dropped to keep the file small; schemas,
 * parameters, request bodies and responses are kept as published (OpenAPI 3.0:
 * `nullable`, `$ref`s to components, oneOf/anyOf/allOf...).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** [method, path] of every operation the adapter or the fake server needs. */
export const OPERATIONS = [
  ['get', '/repos/{owner}/{repo}'],
  ['get', '/repos/{owner}/{repo}/collaborators/{username}/permission'],
  ['get', '/repos/{owner}/{repo}/issues/{issue_number}'],
  ['get', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['post', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['patch', '/repos/{owner}/{repo}/issues/comments/{comment_id}'],
  ['get', '/repos/{owner}/{repo}/pulls'],
  ['post', '/repos/{owner}/{repo}/pulls'],
  ['get', '/repos/{owner}/{repo}/pulls/{pull_number}'],
  ['patch', '/repos/{owner}/{repo}/pulls/{pull_number}'],
  ['get', '/repos/{owner}/{repo}/contents/{path}'],
  // policy: allowed-teams
  ['get', '/orgs/{org}/teams/{team_slug}/memberships/{username}'],
  // CI repair
  ['get', '/repos/{owner}/{repo}/actions/runs'],
  ['get', '/repos/{owner}/{repo}/actions/runs/{run_id}'],
  ['get', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs'],
  ['get', '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs'],
  // conversation on its own pull request: reviews, review comments and replies in their thread
  ['get', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}'],
  ['get', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments'],
  ['get', '/repos/{owner}/{repo}/pulls/comments/{comment_id}'],
  ['post', '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies'],
];

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const source = join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json');
const target = join(here, '..', 'test-support', 'fixtures', 'github-openapi.json');

/** Keywords that carry prose or examples only. */
const DROP = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'title', 'tags']);
/** Keys whose value is a map from names (property names, status codes, media types...) to objects. */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'responses', 'content', 'headers', 'encoding', 'schemas', 'parameters', 'mapping', 'variables']);

/** Copy without prose; `namesHere` marks a map whose keys are names, never keywords. */
function clean(node, namesHere = false) {
  if (Array.isArray(node)) return node.map((item) => clean(item));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && (DROP.has(key) || key.startsWith('x-'))) continue;
    const childIsMap = !namesHere && NAME_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value);
    out[key] = clean(value, childIsMap);
  }
  return out;
}

function collectRefs(node, found) {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.add(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

const spec = JSON.parse(readFileSync(source, 'utf8'));
const paths = {};
for (const [method, path] of OPERATIONS) {
  const operation = spec.paths[path]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in ${source}`);
  paths[path] ??= {};
  paths[path][method] = { operationId: operation.operationId, ...clean(operation) };
}

const components = {};
const pending = [...collectRefs(paths, new Set())];
const seen = new Set();
while (pending.length > 0) {
  const ref = pending.pop();
  if (seen.has(ref)) continue;
  seen.add(ref);
  const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
  if (!match) throw new Error(`unsupported $ref ${ref}`);
  const [, kind, name] = match;
  const value = spec.components[kind]?.[name];
  if (value === undefined) throw new Error(`dangling $ref ${ref}`);
  const cleaned = clean(value);
  (components[kind] ??= {})[name] = cleaned;
  for (const next of collectRefs(cleaned, new Set())) if (!seen.has(next)) pending.push(next);
}
for (const kind of Object.keys(components)) {
  components[kind] = Object.fromEntries(Object.entries(components[kind]).sort(([a], [b]) => a.localeCompare(b)));
}

const trimmed = {
  openapi: spec.openapi,
  info: { title: 'api.github.com, trimmed for agent-fix tests', version: spec.info.version, 'x-source': `@octokit/openapi ${require('@octokit/openapi/package.json').version}` },
  paths,
  components,
};
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, JSON.stringify(trimmed) + '\n');
const kinds = Object.entries(components).map(([k, v]) => `${Object.keys(v).length} ${k}`).join(', ');
console.log(`wrote ${target}: ${OPERATIONS.length} operations, ${kinds}, ${JSON.stringify(trimmed).length} bytes`);
