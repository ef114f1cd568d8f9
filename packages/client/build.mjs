// Builds packages/client/dist from the repository's contract/ (docs/client-and-openapi.md,
// "Declarations"): tsc emits the JavaScript and the declarations, then every exported zod schema's
// declared type is rewritten as `z.ZodType<Output, z.ZodTypeDef, Input>` over named types
// (interfaces and type aliases) printed from what the schema infers. A nested schema is referred
// to by its name, so a consumer's compiler reads each shape once instead of re-instantiating
// zod's generics for every route.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.join(here, 'dist');
rmSync(outDir, { recursive: true, force: true });

const configPath = path.join(here, 'tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: fail });
if (!config) throw new Error('tsconfig.json could not be read');
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const emitted = program.emit();
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
if (diagnostics.length > 0) fail(diagnostics);
const checker = program.getTypeChecker();
const rootDir = path.resolve(config.options.rootDir ?? '.');
const sources = program.getSourceFiles().filter((file) => path.resolve(file.fileName).startsWith(rootDir + path.sep));

function fail(diagnostic) {
  const list = Array.isArray(diagnostic) ? diagnostic : [diagnostic];
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => here, getNewLine: () => '\n' };
  throw new Error(ts.formatDiagnostics(list, host));
}

const isZodType = (type) => Boolean(type.getProperty('_def') && type.getProperty('_output') && type.getProperty('safeParse'));
const moduleOf = (file) => `./${path.relative(rootDir, file.fileName).replace(/\.ts$/, '.js')}`;
const isExported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;

/** Each exported zod schema: its file, its type, and the names its output and input get. */
const schemas = [];
const takenNames = new Set();
/** `export type X = z.infer<typeof XSchema>` (or z.output): X becomes the schema's output name. */
const aliasOf = new Map();
for (const file of sources) {
  for (const statement of file.statements) {
    if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) {
      if (statement.name) takenNames.add(statement.name.text);
    }
    if (ts.isTypeAliasDeclaration(statement) && isExported(statement) && !statement.typeParameters) {
      const match = /^z\.(?:infer|output)<typeof (\w+)>$/.exec(statement.type.getText(file));
      if (match) aliasOf.set(`${file.fileName}#${match[1]}`, statement.name.text);
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) takenNames.add(declaration.name.text);
      }
    }
  }
}
for (const file of sources) {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !isExported(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name)) continue;
      const type = checker.getTypeAtLocation(declaration.name);
      const constName = declaration.name.text;
      // Only the contract's schemas (`…Schema`) get names; a field helper is written out where it is used.
      if (!isZodType(type) || !constName.endsWith('Schema')) continue;
      const stem = constName.replace(/Schema$/, '');
      const alias = aliasOf.get(`${file.fileName}#${constName}`);
      const outputName = alias ?? (takenNames.has(stem) ? `${stem}Output` : stem);
      takenNames.add(outputName);
      schemas.push({ file, constName, type, outputName, inputName: outputName, alias });
    }
  }
}

const outputType = (schema) => checker.getTypeOfSymbol(schema.getProperty('_output'));
const inputType = (schema) => checker.getTypeOfSymbol(schema.getProperty('_input'));
/** A type seen in another shape is written as the name of the schema it came from. */
const namedOutputs = new Map();
const namedInputs = new Map();
const namedSchemas = new Map();
/**
 * Whether a type can stand for its schema by identity: an object, or a union of objects and
 * literals (an enum). `string`, `boolean` or `string | undefined` are the same type wherever they
 * occur, so they are never written as a schema's name.
 */
function nameable(type) {
  if (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return true;
  if (!(type.flags & ts.TypeFlags.Union)) return false;
  const literal = ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral;
  const allowed = ts.TypeFlags.Object | ts.TypeFlags.Intersection | literal | ts.TypeFlags.Null | ts.TypeFlags.Undefined;
  return (
    type.types.every((member) => member.flags & allowed) &&
    type.types.some((member) => member.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection | literal))
  );
}
for (const schema of schemas) {
  if (!namedSchemas.has(schema.type)) namedSchemas.set(schema.type, schema);
  const output = outputType(schema.type);
  if (nameable(output) && !namedOutputs.has(output)) namedOutputs.set(output, schema);
}

const identifier = /^[A-Za-z_$][\w$]*$/;
/** A numeric key stays a number (`200:`, as ts-rest reads a route's statuses), others are quoted when needed. */
const propertyKey = (name) => (identifier.test(name) || /^(0|[1-9]\d*)$/.test(name) ? name : JSON.stringify(name));

/** Prints a type as TypeScript source, naming what has a name; `uses` collects those names. */
class Printer {
  constructor(uses) {
    this.uses = uses;
    this.stack = new Set();
  }

  reference(schema, name) {
    this.uses.set(name, schema.file);
    return name;
  }

  print(type, { top = false, input = false } = {}) {
    if (!top) {
      if (!input && namedOutputs.has(type)) return this.reference(namedOutputs.get(type), namedOutputs.get(type).outputName);
      if (input && namedInputs.has(type)) return this.reference(namedInputs.get(type), namedInputs.get(type).inputName);
    }
    const flags = type.flags;
    if (flags & ts.TypeFlags.Any) return 'any';
    if (flags & ts.TypeFlags.Unknown) return 'unknown';
    if (flags & ts.TypeFlags.Never) return 'never';
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.Number | ts.TypeFlags.Boolean | ts.TypeFlags.BigInt)) return checker.typeToString(type);
    if (flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.ESSymbol)) return checker.typeToString(type);
    if (flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral | ts.TypeFlags.BigIntLiteral)) {
      return checker.typeToString(type);
    }
    if (flags & ts.TypeFlags.UniqueESSymbol) {
      const name = type.symbol?.name;
      if (name !== 'ContractNoBody') throw new Error(`unexpected unique symbol ${checker.typeToString(type)}`);
      this.uses.set(name, '@ts-rest/core');
      return `typeof ${name}`;
    }
    if (flags & ts.TypeFlags.Union) return this.union(type.types, input);
    if (flags & ts.TypeFlags.Intersection) return this.intersection(type.types, input);
    if (flags & ts.TypeFlags.TemplateLiteral) return checker.typeToString(type);
    if (flags & ts.TypeFlags.Object) return this.object(type, input);
    throw new Error(`cannot print ${checker.typeToString(type)}`);
  }

  union(members, input) {
    const printed = [];
    const literals = members.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
    for (const member of members) {
      if (member.flags & ts.TypeFlags.BooleanLiteral && literals.length === 2) {
        if (!printed.includes('boolean')) printed.push('boolean');
        continue;
      }
      const text = this.print(member, { input });
      printed.push(/^[(]|=>/.test(text) && !text.startsWith('(') ? `(${text})` : text);
    }
    return printed.join(' | ');
  }

  intersection(members, input) {
    const plain = members.every(
      (member) => member.flags & ts.TypeFlags.Object && !checker.isArrayType(member) && !checker.isTupleType(member) && !isZodType(member),
    );
    const names = members.flatMap((member) => checker.getPropertiesOfType(member).map((property) => property.name));
    if (plain && new Set(names).size === names.length && !members.some((member) => namedOutputs.has(member))) {
      return this.members(members, input);
    }
    return members
      .map((member) => (member.flags & ts.TypeFlags.Union ? `(${this.print(member, { input })})` : this.print(member, { input })))
      .join(' & ');
  }

  object(type, input) {
    if (isZodType(type)) {
      const named = namedSchemas.get(type);
      if (named) return `typeof ${this.reference(named, named.constName)}`;
      this.uses.set('z', 'zod');
      return `z.ZodType<${this.print(outputType(type))}, z.ZodTypeDef, ${this.print(inputType(type), { input: true })}>`;
    }
    if (checker.isTupleType(type)) {
      const target = type.target;
      const elements = checker.getTypeArguments(type).map((element, index) => {
        const flag = target.elementFlags[index];
        const text = this.print(element, { input });
        if (flag & ts.ElementFlags.Rest) return `...${wrapArrayElement(text)}[]`;
        return flag & ts.ElementFlags.Optional ? `${text}?` : text;
      });
      return `${target.readonly ? 'readonly ' : ''}[${elements.join(', ')}]`;
    }
    if (checker.isArrayType(type)) {
      const element = this.print(checker.getTypeArguments(type)[0], { input });
      return `${type.symbol?.name === 'ReadonlyArray' ? 'readonly ' : ''}${wrapArrayElement(element)}[]`;
    }
    if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0)
      throw new Error(`cannot print a function: ${checker.typeToString(type)}`);
    if (this.stack.has(type)) throw new Error(`recursive type without a name: ${checker.typeToString(type)}`);
    this.stack.add(type);
    try {
      return this.members([type], input);
    } finally {
      this.stack.delete(type);
    }
  }

  members(parts, input) {
    const lines = [];
    for (const part of parts) {
      for (const property of checker.getPropertiesOfType(part)) {
        const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
        const readonly = isReadonly(property) ? 'readonly ' : '';
        lines.push(`${readonly}${propertyKey(property.name)}${optional}: ${this.print(checker.getTypeOfSymbol(property), { input })};`);
      }
      for (const index of checker.getIndexInfosOfType(part)) {
        lines.push(
          `${index.isReadonly ? 'readonly ' : ''}[key: ${checker.typeToString(index.keyType)}]: ${this.print(index.type, { input })};`,
        );
      }
    }
    return lines.length === 0 ? '{}' : `{ ${lines.join(' ')} }`;
  }
}

function wrapArrayElement(text) {
  return /[|&\s]/.test(text) && !/^[{[]/.test(text) ? `(${text})` : text;
}

function isReadonly(property) {
  const declaration = property.valueDeclaration;
  if (declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly) return true;
  // `as const` and mapped readonly properties are marked on the symbol's check flags (1 << 3).
  return Boolean(property.links?.checkFlags & 8);
}

// A schema's input gets its own name when it differs from its output (defaults, coercions), also
// when only a nested schema's input differs: repeated until no name changes.
for (const schema of schemas) {
  const input = inputType(schema.type);
  if (nameable(input) && !namedInputs.has(input)) namedInputs.set(input, schema);
}
for (let changed = true; changed;) {
  changed = false;
  for (const schema of schemas) {
    if (schema.inputName !== schema.outputName) continue;
    const outputText = new Printer(new Map()).print(outputType(schema.type), { top: true });
    const inputText = new Printer(new Map()).print(inputType(schema.type), { top: true, input: true });
    if (inputText === outputText) continue;
    schema.inputName = `${schema.outputName}Input`;
    if (takenNames.has(schema.inputName)) throw new Error(`${schema.inputName} is taken`);
    takenNames.add(schema.inputName);
    changed = true;
  }
}

for (const file of sources) {
  const declarationPath = path.join(outDir, path.relative(rootDir, file.fileName).replace(/\.ts$/, '.d.ts'));
  const original = readFileSync(declarationPath, 'utf8');
  const declarationFile = ts.createSourceFile(declarationPath, original, ts.ScriptTarget.Latest, true);
  const uses = new Map();
  const replacements = [];
  const added = [];
  const fileSchemas = schemas.filter((schema) => schema.file === file);
  const sourceTypes = new Map();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name)) sourceTypes.set(declaration.name.text, checker.getTypeAtLocation(declaration.name));
    }
  }
  for (const schema of fileSchemas) {
    const printer = new Printer(uses);
    const output = printer.print(outputType(schema.type), { top: true });
    added.push(declarationOf(schema.outputName, output, outputType(schema.type)));
    if (schema.inputName !== schema.outputName) {
      added.push(
        declarationOf(schema.inputName, printer.print(inputType(schema.type), { top: true, input: true }), inputType(schema.type)),
      );
    }
  }
  for (const statement of declarationFile.statements) {
    if (ts.isTypeAliasDeclaration(statement) && fileSchemas.some((schema) => schema.alias === statement.name.text)) {
      replacements.push({ start: statement.getFullStart(), end: statement.getEnd(), text: '' });
    }
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !declaration.type) continue;
      const type = sourceTypes.get(declaration.name.text);
      if (!type) continue;
      const schema = fileSchemas.find((candidate) => candidate.constName === declaration.name.text);
      let text;
      if (schema) {
        uses.set('z', 'zod');
        text = `z.ZodType<${schema.outputName}, z.ZodTypeDef, ${schema.inputName}>`;
      } else if (mentionsZod(declaration.type.getText(declarationFile))) {
        text = new Printer(uses).print(type, { top: true });
      } else continue;
      replacements.push({ start: declaration.type.getStart(declarationFile), end: declaration.type.getEnd(), text });
    }
  }
  let text = original;
  for (const { start, end, text: replacement } of replacements.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, start) + replacement + text.slice(end);
  }
  const imports = importLines(uses, file, declarationFile);
  writeFileSync(declarationPath, `${imports}${text.trimEnd()}\n${added.length > 0 ? `${added.join('\n')}\n` : ''}`);
}

function mentionsZod(text) {
  return /\bz\.Zod|\bZod\w+</.test(text);
}

function declarationOf(name, text, type) {
  return text.startsWith('{') && !(type.flags & (ts.TypeFlags.Union | ts.TypeFlags.Intersection))
    ? `export interface ${name} ${text}`
    : `export type ${name} = ${text};`;
}

/** `import type` lines for the names a rewritten file refers to and does not declare or import. */
function importLines(uses, file, declarationFile) {
  const local = new Set();
  for (const statement of declarationFile.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      if (clause.name) local.add(clause.name.text);
      if (clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        for (const element of clause.namedBindings.elements) local.add(element.name.text);
      }
      if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings)) local.add(clause.namedBindings.name.text);
    }
  }
  const bySource = new Map();
  for (const [name, source] of uses) {
    if (local.has(name) || source === file) continue;
    const specifier = typeof source === 'string' ? source : moduleOf(source);
    bySource.set(specifier, [...(bySource.get(specifier) ?? []), name]);
  }
  return [...bySource].map(([specifier, names]) => `import type { ${names.sort().join(', ')} } from '${specifier}';\n`).join('');
}
