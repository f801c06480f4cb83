/**
 * The one answer to "is this a test file?" (the guard, the proof, the loop, related-test
 * selection and command detection all ask it), from the language registry (src/lang/): each
 * language names its test files by name and by place; `__tests__/` holds tests in any language;
 * snapshots (`.snap`, `__snapshots__/`, `.ambr`, `.golden`) are not test files but data the guard
 * treats on their own. Pure.
 */
export { isSnapshotFile, isTestFile, isTestFileByName } from '../lang/index.js';
