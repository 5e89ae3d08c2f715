// Writes the jest totals to a file so .ci/run can print the plain "N passed, N failed" line.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.SOUS_TEST_SUMMARY || path.join(process.cwd(), 'test-results', 'summary.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const failedSuites = results.numFailedTestSuites + (results.numRuntimeErrorTestSuites || 0);
    fs.writeFileSync(file, JSON.stringify({
      passed: results.numPassedTests,
      failed: results.numFailedTests,
      skipped: results.numPendingTests + results.numTodoTests,
      failedSuites,
      total: results.numTotalTests,
    }));
  }
}
module.exports = SummaryReporter;
