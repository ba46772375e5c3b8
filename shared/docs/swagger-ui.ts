import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Swagger UI's files the reference page loads, named as npm's `swagger-ui-dist` names them. */
export const SWAGGER_UI_FILES = [
  { file: 'swagger-ui-bundle.js', role: 'script', mediaType: 'text/javascript; charset=utf-8' },
  { file: 'swagger-ui.css', role: 'styles', mediaType: 'text/css; charset=utf-8' },
] as const;

export type SwaggerUiRole = (typeof SWAGGER_UI_FILES)[number]['role'];

/** The names the reference page links, by role. */
export type SwaggerUiLinks = Readonly<Record<SwaggerUiRole, string>>;

export interface SwaggerUiFile {
  readonly file: string;
  readonly role: SwaggerUiRole;
  readonly mediaType: string;
  readonly content: Buffer;
  readonly sha256: string;
  /** The name the page links: content-addressed, so an answer can be cached for a year. */
  readonly versionedName: string;
}

/**
 * The name of the folder beside a bundle whose Lambda asset carries Swagger UI's files, set by
 * esbuild's `define` (the asset function's). Unset, the files are read where npm installed them.
 */
export const SWAGGER_UI_FOLDER_GLOBAL = 'DOCS_SWAGGER_UI_FOLDER';
declare const DOCS_SWAGGER_UI_FOLDER: string | undefined;

/**
 * The page's links as JSON, set by esbuild's `define` in a bundle that links the files without
 * carrying them (the page function's), computed from the same files when it was bundled.
 */
export const SWAGGER_UI_LINKS_GLOBAL = 'DOCS_SWAGGER_UI_LINKS';
declare const DOCS_SWAGGER_UI_LINKS: string | undefined;

/** Where Swagger UI's files are: beside the bundle in a Lambda asset, else `swagger-ui-dist` in node_modules. */
export function swaggerUiFolder(): string {
  if (typeof DOCS_SWAGGER_UI_FOLDER === 'string') return fileURLToPath(new URL(`./${DOCS_SWAGGER_UI_FOLDER}/`, import.meta.url));
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** Swagger UI's files as they are in `folder`, each with its digest and versioned name. */
export function readSwaggerUi(folder: string = swaggerUiFolder()): SwaggerUiFile[] {
  return SWAGGER_UI_FILES.map(({ file, role, mediaType }) => {
    const content = readFileSync(join(folder, file));
    const sha256 = createHash('sha256').update(content).digest('hex');
    const versionedName = file.replace(/\.(js|css)$/, `.${sha256.slice(0, 12)}.$1`);
    return { file, role, mediaType, content, sha256, versionedName };
  });
}

export const linksOf = (files: readonly SwaggerUiFile[]): SwaggerUiLinks =>
  Object.fromEntries(files.map((file) => [file.role, file.versionedName])) as Record<SwaggerUiRole, string>;

/** The names the reference page links. */
export function swaggerUiLinks(): SwaggerUiLinks {
  if (typeof DOCS_SWAGGER_UI_LINKS === 'string') return JSON.parse(DOCS_SWAGGER_UI_LINKS) as SwaggerUiLinks;
  return linksOf(readSwaggerUi());
}
