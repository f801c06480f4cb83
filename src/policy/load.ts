/**
 * Reads the policy from the default branch through the API: never from the working tree,
 * which the code under review (or a pull request) can change.
 */
import type { GitHubPort } from '../ports/github.js';
import { DEFAULT_POLICY, parsePolicy, POLICY_PATH, type Policy } from './schema.js';

export interface LoadedPolicy {
  policy: Policy;
  /** For the report: which policy applied. */
  source: string;
}

/** Throws PolicyError (invalid file) or the API's error; a missing file is the default policy. */
export async function loadPolicy(github: GitHubPort, defaultBranch: string): Promise<LoadedPolicy> {
  if (!github.getFileContent) return { policy: DEFAULT_POLICY, source: 'the default policy (this GitHub client cannot read files)' };
  const text = await github.getFileContent(POLICY_PATH, defaultBranch);
  if (text === null) return { policy: DEFAULT_POLICY, source: `the default policy (no ${POLICY_PATH} on ${defaultBranch})` };
  const policy = parsePolicy(text, `${POLICY_PATH} on ${defaultBranch}`);
  return { policy, source: `${POLICY_PATH} from the default branch ${defaultBranch}` };
}
