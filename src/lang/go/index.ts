/** Go: `*_test.go` files, `func TestX(` and `t.Skip(`, imports within the module (go.mod), `go test`. No checker yet (a `go vet` would be one file here). */
import { go as goTest } from '../../verify/runners/go.js';
import type { Language } from '../types.js';
import { goDependencies } from './imports.js';

export const go = {
  id: 'go',
  sources: /\.go$/,
  testNames: [/_test\.go$/],
  testPlaces: [],
  testDeclarations: [/^\s*func\s+(Test\w+)\s*\(/],
  skipMarkers: [/\bt\.Skip(?:f|Now)?\s*\(/],
  stemOfTest: (p: string) => /(?:^|\/)([^/]+)_test\.go$/.exec(p)?.[1] ?? null,
  dependencies: goDependencies,
  crashHeaders: ['panic: '],
  dependencyPaths: ['/go/pkg/mod/'],
  runners: [goTest],
  checkers: [],
} as const satisfies Language;
