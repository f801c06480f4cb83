import { isSnapshotFile, isTestFile, isTestFileByName } from '../../src/lang/index.js';
import { checkTestIntegrity } from '../../src/guard/test-integrity.js';

describe('one test-file classifier', () => {
  test.each([
    'src/math.test.js',
    'src/math.spec.ts',
    'web/App.test.tsx',
    'lib/util.test.mjs',
    'tests/test_cart.py',
    'pkg/cart_test.py',
    'internal/cart/cart_test.go',
  ])('%s is a test file by its name', (p) => {
    expect(isTestFileByName(p)).toBe(true);
    expect(isTestFile(p)).toBe(true);
  });

  test.each(['__tests__/helpers.js', 'test/fixtures/setup.js', 'tests/conftest_helpers.py', 'tests/integration.rs', 'spec/models/user_spec.rb', 'spec/cart.js'])(
    '%s is a test file by where it lives, not by its name',
    (p) => {
      expect(isTestFile(p)).toBe(true);
      expect(isTestFileByName(p)).toBe(false);
    },
  );

  test.each(['src/math.js', 'src/testing.js', 'src/contest.py', 'latest/notes.md', 'test/README.md', 'docs/spec.md', 'src/test_helpers.go'])('%s is not a test file', (p) => {
    expect(isTestFile(p)).toBe(false);
  });

  test('snapshots are data, not test files', () => {
    for (const p of ['src/__snapshots__/math.test.js.snap', 'tests/snapshots/x.ambr', 'test/out.golden']) {
      expect(isSnapshotFile(p)).toBe(true);
      expect(isTestFile(p)).toBe(false);
    }
  });

  test('the guard asks the same classifier: deleting a file is deleting a test exactly when the registry says it is one', () => {
    const deleting = (p: string) => `diff --git a/${p} b/${p}\ndeleted file mode 100644\n--- a/${p}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`;
    for (const p of ['tests/test_cart.py', 'internal/cart/cart_test.go', 'src/math.spec.ts', 'src/cart.py', 'lib/util.mjs']) {
      expect(checkTestIntegrity(deleting(p)).some((f) => f.category === 'delete-test')).toBe(isTestFile(p));
    }
  });
});
