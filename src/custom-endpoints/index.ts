export { CustomEndpointRegistry } from './registry.js';
export {
  createCustomEndpointService,
  type CustomEndpointService,
  type CustomEndpointView,
} from './service.js';
export {
  customEndpointRoutes,
  CustomEndpointDescriptionSchema,
  CustomEndpointSlugSchema,
} from './routes.js';
export { MAX_CUSTOM_ENDPOINTS, PARAMETER_NAMES, type CustomQuery } from './query.js';
export type { OpenApiLabel } from './openapi.js';
