import type { FunctionName } from '#infra/function-access.ts';
import {
  linksOf,
  readSwaggerUi,
  SWAGGER_UI_FILES,
  SWAGGER_UI_FOLDER_GLOBAL,
  SWAGGER_UI_LINKS_GLOBAL,
  swaggerUiFolder,
} from '#shared/docs/swagger-ui.ts';

/**
 * How the reference page's functions get Swagger UI at bundle time, from `swagger-ui-dist` as npm
 * installed it (nothing generated is kept in the repository): the asset function's Lambda asset
 * carries the files beside its bundle (`files`), which it reads as the local server reads them
 * from node_modules; the page function only links them (`links`): their versioned names are
 * compiled into its bundle, so it stays a few kilobytes.
 */
export type SwaggerUiBundling = 'files' | 'links';

/** The functions that need Swagger UI, and how. */
export const SWAGGER_UI_BUNDLING: Partial<Readonly<Record<FunctionName, SwaggerUiBundling>>> = {
  'api-docs': 'links',
  'api-docs-asset': 'files',
};

/** The folder beside the bundle that holds the files in the asset function's Lambda asset. */
export const SWAGGER_UI_ASSET_FOLDER = 'swagger-ui';

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface SwaggerUiBundleSettings {
  /** esbuild's `define`. */
  readonly define: Record<string, string>;
  /** Shell commands run once esbuild has written the bundle into `outputDir`. */
  readonly afterBundling: (outputDir: string) => string[];
}

export function swaggerUiBundleSettings(kind: SwaggerUiBundling): SwaggerUiBundleSettings {
  if (kind === 'links') {
    return { define: { [SWAGGER_UI_LINKS_GLOBAL]: JSON.stringify(JSON.stringify(linksOf(readSwaggerUi()))) }, afterBundling: () => [] };
  }
  const source = swaggerUiFolder();
  return {
    define: { [SWAGGER_UI_FOLDER_GLOBAL]: JSON.stringify(SWAGGER_UI_ASSET_FOLDER) },
    afterBundling: (outputDir) => {
      const target = `${outputDir}/${SWAGGER_UI_ASSET_FOLDER}`;
      const files = SWAGGER_UI_FILES.map(({ file }) => shellQuote(`${source}/${file}`));
      return [`mkdir -p ${shellQuote(target)}`, `cp ${files.join(' ')} ${shellQuote(target)}/`];
    },
  };
}
