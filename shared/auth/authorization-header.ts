const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The token of `Authorization: <jwt>` or `Authorization: Bearer <jwt>`; undefined otherwise. */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = header.trim();
  const token = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, '') : value;
  return token.length <= 4096 && JWT_SHAPE.test(token) ? token : undefined;
}
