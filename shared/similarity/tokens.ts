/**
 * A file's text → the tokens similarity compares: for code, the syntax tree of the real parser
 * (tree-sitter, as WebAssembly) as Dolos's `CodeTokenizer` writes it: each named node in pre-order
 * as `(`, its type, its children, `)`, so identifiers and literals are only their node type (a
 * renamed variable or a changed number is the same token) and comments and whitespace are gone.
 * Other files are compared as text: their words, lower-cased.
 *
 * The grammars are the prebuilt ones of `tree-sitter-wasms`, found through Node's module
 * resolution from this file; each is loaded once per process. A Lambda bundle carries no
 * `node_modules` and esbuild does not follow files a module loads at run time, so a bundle that
 * tokenizes has `web-tree-sitter/tree-sitter.wasm` and the five grammar files copied into a folder
 * beside it (infra/aws/service-function.ts, for any bundle naming GRAMMARS_FOLDER_GLOBAL's
 * folder), and reads them there.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Region } from '@dodona/dolos-core';
import { Language, Parser, type Node } from 'web-tree-sitter';

export const CODE_LANGUAGES = ['python', 'java', 'c', 'cpp', 'javascript'] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];
export type SimilarityLanguage = CodeLanguage | 'text';

export interface Token {
  token: string;
  /** Rows and columns from 0; the end is exclusive. For a node, from its start to where its first child starts (Dolos's region). */
  region: Region;
}

/** The extensions Dolos's language picker gives each language (`.h` is C, as Dolos picks the first match). */
const EXTENSIONS: Record<CodeLanguage, readonly string[]> = {
  c: ['.c', '.h'],
  cpp: ['.cpp', '.hpp', '.cc', '.cp', '.cxx', '.c++', '.hh', '.hxx', '.h++'],
  python: ['.py', '.py3'],
  java: ['.java'],
  javascript: ['.js', '.mjs', '.cjs'],
};

/** The file's language: `language` when it names one of ours (case-insensitive, `c++` for cpp), else its extension's, else text. */
export function languageOf(fileName: string, language?: string): SimilarityLanguage {
  const named = language
    ?.trim()
    .toLowerCase()
    .replace(/^c\+\+$/, 'cpp');
  if (named !== undefined && (CODE_LANGUAGES as readonly string[]).includes(named)) return named as CodeLanguage;
  const lower = fileName.toLowerCase();
  for (const code of CODE_LANGUAGES) {
    if (EXTENSIONS[code].some((extension) => lower.endsWith(extension))) return code;
  }
  return 'text';
}

const require = createRequire(import.meta.url);

/**
 * The folder beside a Lambda bundle holding the WebAssembly files, set by esbuild's `define` in
 * the bundles that tokenize; unset (node_modules) everywhere else.
 */
export const GRAMMARS_FOLDER_GLOBAL = 'SIMILARITY_GRAMMARS_FOLDER';
declare const SIMILARITY_GRAMMARS_FOLDER: string | undefined;

/** The runtime's file, then each language's grammar: where they are installed, and their names as a bundle carries them. */
export function wasmSources(): { source: string; file: string }[] {
  return [
    { source: require.resolve('web-tree-sitter/tree-sitter.wasm'), file: 'tree-sitter.wasm' },
    ...CODE_LANGUAGES.map((language) => ({
      source: require.resolve(`tree-sitter-wasms/out/tree-sitter-${language}.wasm`),
      file: `tree-sitter-${language}.wasm`,
    })),
  ];
}

const bundledFolder = (): string | undefined =>
  typeof SIMILARITY_GRAMMARS_FOLDER === 'string' ? fileURLToPath(new URL(`./${SIMILARITY_GRAMMARS_FOLDER}/`, import.meta.url)) : undefined;

/** The grammar file of `language`. */
function grammarPath(language: CodeLanguage): string {
  const folder = bundledFolder();
  return folder === undefined
    ? require.resolve(`tree-sitter-wasms/out/tree-sitter-${language}.wasm`)
    : join(folder, `tree-sitter-${language}.wasm`);
}

/** The runtime, from the bundle's folder when there is one. */
function initRuntime(): Promise<void> {
  const folder = bundledFolder();
  return folder === undefined ? Parser.init() : Parser.init({ locateFile: (name: string) => join(folder, name) });
}

let runtime: Promise<void> | undefined;
const parsers = new Map<CodeLanguage, Promise<Parser>>();

function parserFor(language: CodeLanguage): Promise<Parser> {
  let parser = parsers.get(language);
  if (parser === undefined) {
    runtime ??= initRuntime();
    parser = runtime.then(async () => {
      const made = new Parser();
      made.setLanguage(await Language.load(grammarPath(language)));
      return made;
    });
    // A failed load is not kept: the next call tries again.
    parser.catch(() => parsers.delete(language));
    parsers.set(language, parser);
  }
  return parser;
}

/** The tokens of `text` in `language` (see the module's comment). */
export async function tokenize(text: string, language: SimilarityLanguage): Promise<Token[]> {
  if (language === 'text') return textTokens(text);
  const parser = await parserFor(language);
  const tree = parser.parse(text);
  if (tree === null) throw new Error(`The ${language} parser gave no tree`);
  try {
    const tokens: Token[] = [];
    treeTokens(tree.rootNode, tokens);
    return tokens;
  } finally {
    tree.delete();
  }
}

/**
 * Dolos's `CodeTokenizer.tokenizeNode`: the node's three tokens share one region, from the node's
 * start to the earliest start of its children (or its own end when it has none), so a match
 * highlights the code that node alone stands for. A comment gives no tokens but still shortens its
 * parent's region, as in Dolos.
 */
function treeTokens(node: Node, tokens: Token[]): [number, number] {
  const start = node.startPosition;
  const end = node.endPosition;
  const region = new Region(start.row, start.column, end.row, end.column);
  const kept = !node.type.includes('comment');
  if (kept) tokens.push({ token: '(', region }, { token: node.type, region });
  for (const child of node.namedChildren) {
    if (child === null) continue;
    const [row, column] = treeTokens(child, tokens);
    if (row < region.endRow || (row === region.endRow && column < region.endCol)) {
      region.endRow = row;
      region.endCol = column;
    }
  }
  if (kept) tokens.push({ token: ')', region });
  return [region.startRow, region.startCol];
}

/** Text: each word (a run of letters and digits, or one other visible character), lower-cased. */
function textTokens(text: string): Token[] {
  const tokens: Token[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, row) => {
    for (const match of line.matchAll(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu)) {
      const column = match.index;
      tokens.push({ token: match[0].toLowerCase(), region: new Region(row, column, row, column + match[0].length) });
    }
  });
  return tokens;
}
