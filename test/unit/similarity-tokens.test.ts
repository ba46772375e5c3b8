import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Region } from '@dodona/dolos-core';
import { languageOf, tokenize } from '#shared/similarity/tokens.ts';

const dolosSample = (name: string) => new URL(`../fixtures/similarity/dolos/${name}`, import.meta.url);
const tokensOf = async (text: string, language: Parameters<typeof tokenize>[1]) =>
  (await tokenize(text, language)).map(({ token }) => token);
const regionsOf = async (text: string, language: Parameters<typeof tokenize>[1]) =>
  (await tokenize(text, language)).map(({ region }) => region);

describe("a file's tokens, as Dolos's tokenizer makes them", () => {
  it.each(['caesar.c', 'caesar.cpp', 'caesar.py'])("gives the token list Dolos's tokenizer test keeps for its sample %s", async (name) => {
    const text = readFileSync(dolosSample(name), 'utf8');
    const expected = readFileSync(dolosSample(`${name}.tokens`), 'utf8')
      .trimEnd()
      .split('\n');
    expect(await tokensOf(text, languageOf(name))).toEqual(expected);
  });

  it("gives Dolos's tokens and regions for its JavaScript variable case", async () => {
    const text = 'var test = 1;';
    expect((await tokensOf(text, 'javascript')).join('')).toBe('(program(variable_declaration(variable_declarator(identifier)(number))))');
    expect(await regionsOf(text, 'javascript')).toEqual([
      new Region(0, 0, 0, 0),
      new Region(0, 0, 0, 0),
      new Region(0, 0, 0, 4),
      new Region(0, 0, 0, 4),
      new Region(0, 4, 0, 4),
      new Region(0, 4, 0, 4),
      new Region(0, 4, 0, 8),
      new Region(0, 4, 0, 8),
      new Region(0, 4, 0, 8),
      new Region(0, 11, 0, 12),
      new Region(0, 11, 0, 12),
      new Region(0, 11, 0, 12),
      new Region(0, 4, 0, 4),
      new Region(0, 0, 0, 4),
      new Region(0, 0, 0, 0),
    ]);
  });

  it("gives Dolos's tokens and regions for its JavaScript loop case", async () => {
    const text = 'let i = 0;\nwhile (i < 10) {\n  i += 1;\n}';
    expect((await tokensOf(text, 'javascript')).join('')).toBe(
      '(program(lexical_declaration(variable_declarator(identifier)(number)))' +
        '(while_statement(parenthesized_expression(binary_expression(identifier)(number)))' +
        '(statement_block(expression_statement(augmented_assignment_expression(identifier)(number))))))',
    );
    const region = (startRow: number, startCol: number, endRow: number, endCol: number) => new Region(startRow, startCol, endRow, endCol);
    expect(await regionsOf(text, 'javascript')).toEqual([
      region(0, 0, 0, 0),
      region(0, 0, 0, 0),
      region(0, 0, 0, 4),
      region(0, 0, 0, 4),
      region(0, 4, 0, 4),
      region(0, 4, 0, 4),
      region(0, 4, 0, 5),
      region(0, 4, 0, 5),
      region(0, 4, 0, 5),
      region(0, 8, 0, 9),
      region(0, 8, 0, 9),
      region(0, 8, 0, 9),
      region(0, 4, 0, 4),
      region(0, 0, 0, 4),
      region(1, 0, 1, 6),
      region(1, 0, 1, 6),
      region(1, 6, 1, 7),
      region(1, 6, 1, 7),
      region(1, 7, 1, 7),
      region(1, 7, 1, 7),
      region(1, 7, 1, 8),
      region(1, 7, 1, 8),
      region(1, 7, 1, 8),
      region(1, 11, 1, 13),
      region(1, 11, 1, 13),
      region(1, 11, 1, 13),
      region(1, 7, 1, 7),
      region(1, 6, 1, 7),
      region(1, 15, 2, 2),
      region(1, 15, 2, 2),
      region(2, 2, 2, 2),
      region(2, 2, 2, 2),
      region(2, 2, 2, 2),
      region(2, 2, 2, 2),
      region(2, 2, 2, 3),
      region(2, 2, 2, 3),
      region(2, 2, 2, 3),
      region(2, 7, 2, 8),
      region(2, 7, 2, 8),
      region(2, 7, 2, 8),
      region(2, 2, 2, 2),
      region(2, 2, 2, 2),
      region(1, 15, 2, 2),
      region(1, 0, 1, 6),
      region(0, 0, 0, 0),
    ]);
  });

  it('leaves comments out, as Dolos does unless asked to keep them', async () => {
    const tokens = await tokensOf('let i = 0;\nwhile (i < 10) { // comment\n  i += 1;\n}', 'javascript');
    expect(tokens).not.toContain('comment');
    expect(tokens).toEqual(await tokensOf('let i = 0;\nwhile (i < 10) {\n  i += 1;\n}', 'javascript'));
  });
});

describe('what the tokens leave out', () => {
  it('gives the same tokens to a Python function with its names, literals, comments and spacing changed', async () => {
    const original = 'def area(width, height):\n    return width * height + 1\n';
    const disguised = '# the area\ndef surface(w,   h):\n\n    return w * h + 42  # plus one\n';
    expect(await tokensOf(disguised, 'python')).toEqual(await tokensOf(original, 'python'));
  });

  it.each([
    ['java', 'class A { int f(int x) { return x + 1; } }', 'class Bee {\n  // note\n  int g(int y) { return y + 7; }\n}'],
    ['c', 'int f(int x) { return x * 2; }', '/* doc */\nint twice(int value) {\n  return value * 3;\n}'],
    ['cpp', 'int f(int x) { return x * 2; }', '// doc\nint twice(int value) { return value * 3; }'],
  ] as const)('does the same for %s', async (language, original, disguised) => {
    expect(await tokensOf(disguised, language)).toEqual(await tokensOf(original, language));
  });

  it('tells a changed structure apart', async () => {
    expect(await tokensOf('x = a + b\n', 'python')).not.toEqual(await tokensOf('x = a(b)\n', 'python'));
  });

  it('compares other files as their lower-cased words and marks, each with its line and columns', async () => {
    const tokens = await tokenize('Hello,  World\n\nbye', 'text');
    expect(tokens.map(({ token }) => token)).toEqual(['hello', ',', 'world', 'bye']);
    expect(tokens.map(({ region }) => region)).toEqual([
      new Region(0, 0, 0, 5),
      new Region(0, 5, 0, 6),
      new Region(0, 8, 0, 13),
      new Region(2, 0, 2, 3),
    ]);
  });
});

describe("a file's language", () => {
  it.each([
    ['main.py', undefined, 'python'],
    ['Main.java', undefined, 'java'],
    ['list.h', undefined, 'c'],
    ['list.C', undefined, 'c'],
    ['list.cc', undefined, 'cpp'],
    ['app.js', undefined, 'javascript'],
    ['notes.txt', undefined, 'text'],
    ['Makefile', undefined, 'text'],
    ['solution', 'Python', 'python'],
    ['solution.h', 'C++', 'cpp'],
    ['script.rb', 'ruby', 'text'],
  ] as const)('of %s (language %s) is %s', (name, language, expected) => {
    expect(languageOf(name, language)).toBe(expected);
  });
});
