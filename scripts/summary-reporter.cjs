// Prints the closing line CI reads: "N passed, N failed". A suite that fails to load counts as failed.
// Written at process exit so it comes after jest's own summary (which jest writes to stderr).
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed\n`;
    process.once('exit', () => fs.writeSync(1, line));
  }
}
module.exports = SummaryReporter;
