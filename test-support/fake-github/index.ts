/**
 * A fake GitHub REST API for integration and end-to-end tests: a real HTTP server on
 * 127.0.0.1 holding one repository's state in memory (issues, comments, pull requests,
 * collaborators, files, workflow runs, jobs and their logs, reviews and review comments).
 *
 * Every request (path parameters, query, JSON body) and every response body is checked
 * against GitHub's published OpenAPI description, trimmed to the operations agent-fix uses
 * (test-support/fixtures/github-openapi.json, made by scripts/trim-openapi.mjs), and every JSON
 * builder is typed with the same description (`@octokit/openapi-types`), so a response that
 * drifts from GitHub's schema fails `tsc` before it fails a test. A mismatch
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
 *
 * Files: types.ts (the public types), state.ts (the repository in memory, seeding), contract.ts
 * (the OpenAPI checks), routes.ts (the operations' answers), json*.ts (the typed JSON),
 * server.ts (HTTP).
 */
export { FakeGitHub, startFakeGitHub } from './server.js';
export type * from './types.js';
