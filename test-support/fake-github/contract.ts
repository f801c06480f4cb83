/**
 * The fake GitHub's contract: GitHub's published OpenAPI description, trimmed to the operations
 * agent-fix uses (test-support/fixtures/github-openapi.json, made by scripts/trim-openapi.mjs),
 * compiled for Ajv. It finds the operation of a request, checks the request (path and query
 * parameters, JSON body) and checks the response about to be sent. Pure: no server, no state.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export type Obj = Record<string, unknown>;

export type SpecNode = any;

const SPEC_ID = 'https://fake-github.invalid/openapi.json';
export const DOCS = 'https://docs.github.com/rest';

interface Route {
  method: string;
  template: string;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
  operation: SpecNode;
}

interface Contract {
  spec: SpecNode;
  ajv: Ajv;
  routes: Route[];
  validators: Map<string, ValidateFunction>;
}

let contract: Contract | null = null;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAPI 3.0 schema -> JSON Schema for Ajv: `nullable`, component refs, ignored `$ref` siblings. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === 'patternProperties') {
      out[key] = isObj(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v)])) : value;
    } else if (key === '$ref' && typeof value === 'string') {
      out[key] = value.replace(/^#\/components\/schemas\//, `${SPEC_ID}#/definitions/`);
    } else if (!['nullable', 'discriminator', 'readOnly', 'writeOnly', 'deprecated', 'xml'].includes(key)) {
      out[key] = toJsonSchema(value);
    }
  }
  const ref: Obj | null = typeof out.$ref === 'string' ? { $ref: out.$ref } : null;
  const base: Obj = ref ?? out; // OpenAPI 3.0: siblings of $ref are ignored
  if (node.nullable === true) {
    if (!ref && typeof base.type === 'string') {
      base.type = [base.type, 'null'];
      if (Array.isArray(base.enum) && !base.enum.includes(null)) base.enum = [...base.enum, null];
      return base;
    }
    return { anyOf: [base, { type: 'null' }] };
  }
  return base;
}

export function loadContract(): Contract {
  if (contract) return contract;
  const spec: SpecNode = JSON.parse(readFileSync(new URL('../fixtures/github-openapi.json', import.meta.url), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
  addFormats(ajv);
  ajv.addFormat('repo.nwo', /^[\w.-]+\/[\w.-]+$/);
  const definitions = Object.fromEntries(Object.entries(spec.components.schemas as Obj).map(([k, v]) => [k, toJsonSchema(v)]));
  ajv.addSchema({ $id: SPEC_ID, definitions });

  const routes: Route[] = [];
  for (const [template, methods] of Object.entries(spec.paths as Obj)) {
    const paramNames: string[] = [];
    const pattern = template
      .split('/')
      .map((segment, index, all) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        paramNames.push(param[1]);
        // the file path of the contents API may contain slashes
        return param[1] === 'path' && index === all.length - 1 ? '(.*)' : '([^/]+)';
      })
      .join('/');
    const literalSegments = template.split('/').filter((s) => s && !s.startsWith('{')).length;
    for (const [method, operation] of Object.entries(methods as Obj)) {
      routes.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${pattern}$`), paramNames, literalSegments, operation });
    }
  }
  routes.sort((a, b) => b.literalSegments - a.literalSegments);
  contract = { spec, ajv, routes, validators: new Map() };
  return contract;
}

function resolve(spec: SpecNode, node: SpecNode): SpecNode {
  let current = node;
  while (isObj(current) && typeof current.$ref === 'string') {
    const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(current.$ref) ?? [];
    current = spec.components?.[kind]?.[name];
    if (current === undefined) throw new Error(`dangling $ref ${String(node.$ref)}`);
  }
  return current;
}

function validator(c: Contract, key: string, schema: unknown, strictBody = false): ValidateFunction {
  let fn = c.validators.get(key);
  if (!fn) {
    let converted = toJsonSchema(schema) as Obj;
    // GitHub ignores unknown body fields; the contract does not, to catch typos in callers.
    if (strictBody && converted.type === 'object' && converted.additionalProperties === undefined) {
      converted = { ...converted, additionalProperties: false };
    }
    fn = c.ajv.compile(converted);
    c.validators.set(key, fn);
  }
  return fn;
}

function describeErrors(errors: ErrorObject[] | null | undefined, where: string): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as Obj).additionalProperty)})` : e.keyword === 'enum' ? ` ${JSON.stringify((e.params as Obj).allowedValues)}` : '';
      return `${where}${e.instancePath} ${e.message ?? e.keyword}${extra}`;
    })
    .join('; ');
}

function coerceParam(raw: string, schema: SpecNode): unknown {
  const type = isObj(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}
/** A request, as the contract sees it. */
export interface ContractRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
  bodyIsJson: boolean;
}

/** The operation a request is for, and its path parameters (decoded; coerced once checked). */
export interface Operation {
  operation: SpecNode;
  operationId: string;
  /** `METHOD /template`, for messages. */
  name: string;
  template: string;
  params: Record<string, unknown>;
}

/** The documented operation for `method` and `path`, or null (a 404 and a violation). */
export function findOperation(method: string, path: string): Operation | null {
  const c = loadContract();
  for (const route of c.routes) {
    const match = route.regex.exec(path);
    if (!match || route.method !== method) continue;
    const params: Record<string, unknown> = {};
    route.paramNames.forEach((name, index) => {
      try {
        params[name] = decodeURIComponent(match[index + 1]);
      } catch {
        params[name] = match[index + 1];
      }
    });
    return { operation: route.operation, operationId: route.operation.operationId as string, name: `${method} ${route.template}`, template: route.template, params };
  }
  return null;
}

/** What is wrong with the request against its operation (empty: nothing); coerces `op.params` in place. */
export function checkRequest(op: Operation, req: ContractRequest): string[] {
  const c = loadContract();
  const { operation, params } = op;
  const { url, rawBody, headers } = req;
  const problems: string[] = [];
  const declared = new Set<string>();
  for (const paramRef of (operation.parameters ?? []) as SpecNode[]) {
    const param = resolve(c.spec, paramRef);
    const where = param.in === 'path' ? 'path' : param.in === 'query' ? 'query' : null;
    if (!where) continue;
    if (where === 'query') declared.add(param.name);
    const raw = where === 'path' ? (params[param.name] as string | undefined) : url.searchParams.get(param.name) ?? undefined;
    if (raw === undefined || (where === 'path' && raw === '' && param.name !== 'path')) {
      if (param.required) problems.push(`${where} parameter ${param.name} is required`);
      continue;
    }
    const value = coerceParam(raw, param.schema);
    if (where === 'path') params[param.name] = value;
    const check = validator(c, `${operation.operationId} param ${param.name}`, param.schema ?? {});
    if (!check(value)) problems.push(describeErrors(check.errors, `${where} parameter ${param.name}`));
  }
  for (const name of url.searchParams.keys()) {
    if (!declared.has(name)) problems.push(`unknown query parameter ${name}`);
  }
  const requestBody = operation.requestBody ? resolve(c.spec, operation.requestBody) : null;
  if (requestBody) {
    const media = requestBody.content?.['application/json'];
    if (rawBody.length === 0) {
      if (requestBody.required) problems.push('a JSON request body is required');
    } else if (!/^application\/json\b/i.test(headers['content-type'] ?? '')) {
      problems.push(`request content-type must be application/json, got ${headers['content-type'] ?? 'none'}`);
    } else if (!req.bodyIsJson) {
      problems.push('request body is not valid JSON');
    } else if (media?.schema) {
      const check = validator(c, `${operation.operationId} request`, media.schema, true);
      if (!check(req.body)) problems.push(describeErrors(check.errors, 'body'));
    }
  } else if (rawBody.length > 0) {
    problems.push('this operation takes no request body');
  }
  return problems;
}

/** What is wrong with a JSON (or empty) response of `status` to the operation, or null. */
export function checkResponse(op: Operation, status: number, body: unknown): string | null {
  const c = loadContract();
  const operation = op.operation;
  const documented = operation.responses?.[String(status)] ?? operation.responses?.default;
  if (!documented) {
    // GitHub answers undocumented errors (404 on PATCH comment...); an undocumented success is a bug here
    return status < 400 ? `status ${status} is not documented for ${op.operationId}` : null;
  }
  const response = resolve(c.spec, documented);
  const media = response.content?.['application/json'];
  if (!media?.schema) return body === undefined ? null : 'the description documents no JSON body for this status';
  if (body === undefined) return 'a JSON body is documented but none was sent';
  const check = validator(c, `${op.operationId} response ${status}`, media.schema);
  return check(body) ? null : describeErrors(check.errors, 'body');
}
