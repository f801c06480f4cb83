/**
 * How a run names things to the person who started it: the action speaks of inputs and pull
 * requests, the CLI of flags, environment variables and local branches. Messages made below the
 * entries (fix.ts, the model adapter) take their words from here, so neither surface shows the
 * other's vocabulary.
 */
export interface Wording {
  /** A setting as the user sets it: the action's "the `test-command` input", the CLI's "`--test-command`". */
  setting(input: string): string;
  /** Said when a run publishes nothing: "no pull request was opened" / "no branch was made". */
  nothingPublished: string;
  /** What to check when the model endpoint rejects the key. */
  keyHelp: string;
}

export const ACTION_WORDING: Wording = {
  setting: (input) => `the \`${input}\` input`,
  nothingPublished: 'no pull request was opened',
  keyHelp: 'check the `api-key` input (for GitHub Models the job needs `permissions: models: read`)',
};
