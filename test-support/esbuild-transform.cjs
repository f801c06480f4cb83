/**
 * Jest's transform for TypeScript: esbuild strips the types of one file at a time (the bundle's
 * own compiler, scripts/build.mjs), ESM in, ESM out. Type checking is `npm run typecheck`'s job,
 * never the test run's; `isolatedModules` in tsconfig.json keeps every file transpilable alone.
 * Much faster than ts-jest (which loads the TypeScript compiler in every worker, even on a warm
 * cache), so the unit tests run in seconds.
 */
const { transformSync, version } = require('esbuild');
const { createHash } = require('node:crypto');

const TSCONFIG = {
  compilerOptions: {
    // tsconfig.json's target ES2022 makes class fields `define` semantics; say so explicitly
    useDefineForClassFields: true,
    verbatimModuleSyntax: false,
  },
};

module.exports = {
  getCacheKey(source, filename, options) {
    return createHash('sha256')
      .update(`esbuild ${version}\0${JSON.stringify(TSCONFIG)}\0${options.supportsStaticESM ? 'esm' : 'cjs'}\0${filename}\0`)
      .update(source)
      .digest('hex');
  },
  process(source, filename, options) {
    const result = transformSync(source, {
      loader: 'ts',
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: filename,
      sourcesContent: false,
      tsconfigRaw: TSCONFIG,
    });
    return { code: result.code, map: result.map };
  },
};
