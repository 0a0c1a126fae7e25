/**
 * @module Reads a numeric constant from a TypeScript file as the code states it, without running the
 * code: `const NAME = <expression>` at the file's top level, where the expression is made of numeric
 * literals, arithmetic, other constants (of the file, or imported from a relative path), arrays and
 * objects (picked into by a path of indices and keys, or by `OTHER.key` in the code), `Object.freeze(…)`,
 * `as` and `satisfies`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/** A constant the code does not state in a form this reader evaluates, or does not have. */
export class ConstantError extends Error {
  override readonly name = 'ConstantError';
}

/** A step into an array (an index) or an object (a key). */
export type ConstantPath = readonly (number | string)[];

/** The top-level `const` declarations of `file` by name, and its relative imports by local name. */
interface ParsedFile {
  readonly constants: ReadonlyMap<string, ts.Expression>;
  readonly imports: ReadonlyMap<string, { readonly file: string; readonly name: string }>;
}

/** Each file of `root` parsed once. */
type Parsed = Map<string, ParsedFile>;

function parse(root: string, file: string, parsed: Parsed): ParsedFile {
  const known = parsed.get(file);
  if (known !== undefined) return known;
  if (!existsSync(join(root, file))) throw new ConstantError(`${file} does not exist`);
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const constants = new Map<string, ts.Expression>();
  const imports = new Map<string, { file: string; name: string }>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && statement.declarationList.flags & ts.NodeFlags.Const) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer) constants.set(declaration.name.text, declaration.initializer);
      }
    }
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text.startsWith('.')) {
      const from = relative('.', normalize(join(dirname(file), statement.moduleSpecifier.text)));
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) imports.set(element.name.text, { file: from, name: (element.propertyName ?? element.name).text });
      }
    }
  }
  const result = { constants, imports };
  parsed.set(file, result);
  return result;
}

/** The value of `expression` in `file`: a number, or an array or object of values. */
function evaluate(root: string, file: string, expression: ts.Expression, parsed: Parsed, depth: number): unknown {
  if (depth > 20) throw new ConstantError(`${file}: constants refer to each other too deeply`);
  const next = (inner: ts.Expression, at = file) => evaluate(root, at, inner, parsed, depth + 1);
  if (ts.isNumericLiteral(expression)) return Number(expression.text);
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  if (ts.isTemplateExpression(expression)) {
    return expression.templateSpans.reduce((text, span) => `${text}${String(next(span.expression))}${span.literal.text}`, expression.head.text);
  }
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)) return next(expression.expression);
  if (ts.isPrefixUnaryExpression(expression) && expression.operator === ts.SyntaxKind.MinusToken) return -(next(expression.operand) as number);
  if (ts.isBinaryExpression(expression)) {
    const [left, right] = [next(expression.left) as number, next(expression.right) as number];
    switch (expression.operatorToken.kind) {
      case ts.SyntaxKind.PlusToken:
        return left + right;
      case ts.SyntaxKind.MinusToken:
        return left - right;
      case ts.SyntaxKind.AsteriskToken:
        return left * right;
      case ts.SyntaxKind.SlashToken:
        return left / right;
      case ts.SyntaxKind.AsteriskAsteriskToken:
        return left ** right;
      case ts.SyntaxKind.LessThanLessThanToken:
        return left << right;
    }
  }
  if (ts.isArrayLiteralExpression(expression)) {
    return expression.elements.flatMap((element) => (ts.isSpreadElement(element) ? (next(element.expression) as unknown[]) : [next(element)]));
  }
  if (ts.isObjectLiteralExpression(expression)) {
    const object: Record<string, unknown> = {};
    for (const property of expression.properties) {
      if (ts.isPropertyAssignment(property) && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
        object[property.name.text] = next(property.initializer);
      }
    }
    return object;
  }
  if (ts.isCallExpression(expression)) {
    const callee = expression.expression;
    const [argument] = expression.arguments;
    const freeze =
      ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'Object' && callee.name.text === 'freeze';
    if (freeze && argument) return next(argument);
  }
  if (ts.isIdentifier(expression)) return constantIn(root, file, expression.text, parsed, depth + 1);
  if (ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.name)) {
    return (next(expression.expression) as Record<string, unknown> | undefined)?.[expression.name.text];
  }
  throw new ConstantError(`${file}: cannot read \`${expression.getText()}\` without running the code`);
}

/** The value of the constant `name` that `file` declares or imports. */
function constantIn(root: string, file: string, name: string, parsed: Parsed, depth: number): unknown {
  const { constants, imports } = parse(root, file, parsed);
  const declared = constants.get(name);
  if (declared !== undefined) return evaluate(root, file, declared, parsed, depth);
  const imported = imports.get(name);
  if (imported !== undefined) return constantIn(root, imported.file, imported.name, parsed, depth);
  throw new ConstantError(`${file} declares no top-level const ${name}`);
}

/**
 * The number that constant `name` of `file` (from `root`) holds, or its element at `path` (indices of
 * arrays, keys of objects: `CLIENT_POLICIES` at `[0, 'windowSeconds']`).
 *
 * @throws ConstantError when the file or the constant is missing, or its value is not a number this
 *   reader can work out.
 */
export function readConstant(root: string, file: string, name: string, path: ConstantPath = []): number {
  const parsed: Parsed = new Map();
  let value = constantIn(root, file, name, parsed, 0);
  for (const step of path) {
    value = (value as Record<string | number, unknown> | undefined)?.[step];
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ConstantError(`${file}: ${name}${path.map((step) => `[${JSON.stringify(step)}]`).join('')} is not a number`);
  }
  return value;
}
