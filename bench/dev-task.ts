/** Shared by the benchmarks that read `../shared/bench/dev-tasks.json`: the task record and flag reading. */

/** One real bug of the dev-tasks corpus (the fields the benchmarks use). */
export interface DevTask {
  id: string;
  test_framework: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  issue_title: string;
  issue_body: string;
  fix_files: string[];
  test_files: string[];
  install_command: string;
  test_command: string;
  fail_to_pass: string[];
}

/** The value after `--<name>` on the command line, or `dflt`. */
export function arg(name: string, dflt?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}
