import ajvCompiler from '@fastify/ajv-compiler';
import serializerCompiler from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;
type ValidatorPool = ReturnType<typeof ajvCompiler>;
type ValidatorArgs = Parameters<ValidatorPool>;
type RouteValidatorCompiler = ReturnType<ValidatorPool>;
type RouteSerializerCompiler = ReturnType<ReturnType<typeof serializerCompiler>>;

/** A compiled validator as Fastify calls it: the result, then `.errors` when it is false. */
interface Validator {
  (data: unknown): unknown;
  errors?: unknown;
}

/**
 * Fastify's own compilers (Ajv for validation, fast-json-stringify for responses), each route's
 * schema compiled on the first request that needs it instead of all of them at start-up
 * (about 1.5 s of CPU on a 2-core machine for this API's hundred routes). `compileAll` compiles
 * every schema not compiled yet, so a test still fails on a schema that does not compile.
 */
export class LazySchemas {
  readonly #pending = new Set<() => unknown>();
  readonly #validators = ajvCompiler();
  readonly #serializers = serializerCompiler();

  /**
   * The `schemaController` option for Fastify. Even the Ajv instance of a set of shared schemas
   * (which checks each of them against the JSON Schema meta-schema) is made on first use.
   */
  readonly controller: SchemaController = {
    compilersFactory: {
      buildValidator: (externalSchemas: ValidatorArgs[0], options: ValidatorArgs[1]) => {
        let compiler: RouteValidatorCompiler | undefined;
        return (route: Parameters<RouteValidatorCompiler>[0]) =>
          this.#validator(() => {
            compiler ??= this.#validators(externalSchemas, options);
            return compiler(route) as Validator;
          }) as ReturnType<RouteValidatorCompiler>;
      },
      buildSerializer: (externalSchemas, options) => {
        let compiler: RouteSerializerCompiler | undefined;
        return (route) =>
          this.#serializer(() => {
            compiler ??= this.#serializers(externalSchemas, options);
            return compiler(route);
          });
      },
    },
  };

  /** Compiles every schema still waiting; throws the first compilation error. */
  compileAll(): void {
    for (const compile of [...this.#pending]) compile();
  }

  #validator(compile: () => Validator): Validator {
    let compiled: Validator | undefined;
    const ensure = (): Validator => {
      compiled ??= compile();
      this.#pending.delete(ensure);
      return compiled;
    };
    this.#pending.add(ensure);
    const validate: Validator = (data) => {
      const v = compiled ?? ensure();
      const result = v(data);
      validate.errors = v.errors;
      return result;
    };
    return validate;
  }

  #serializer(compile: () => (doc: unknown) => string): (doc: unknown) => string {
    let compiled: ((doc: unknown) => string) | undefined;
    const ensure = (): ((doc: unknown) => string) => {
      compiled ??= compile();
      this.#pending.delete(ensure);
      return compiled;
    };
    this.#pending.add(ensure);
    return (doc) => (compiled ?? ensure())(doc);
  }
}
