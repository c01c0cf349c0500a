import type { FastifyInstance, RouteOptions } from 'fastify';

/** A route's hooks of one kind as a list (Fastify accepts none, one or several). */
export function hookList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Calls `attach` for every route added from now on that answers one of `methods`, so hooks
 * sit on those routes only and the others (the GET lookups) pay nothing for them.
 */
export function onRoutesWith(
  app: FastifyInstance,
  methods: readonly string[],
  attach: (route: RouteOptions) => void,
): void {
  app.addHook('onRoute', (route) => {
    if (hookList(route.method).some((m) => methods.includes(m))) attach(route);
  });
}
