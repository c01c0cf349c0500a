import { Type, type TUnsafe } from '@sinclair/typebox';

/**
 * A string restricted to listed values, as a plain JSON Schema `enum` (not TypeBox's anyOf of
 * literals), so validation errors carry the allowed values and OpenAPI shows a proper enum.
 */
export function StringEnum<T extends string>(
  values: readonly T[],
  options: { description?: string; default?: T } = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}
