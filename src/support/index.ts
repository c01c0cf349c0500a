export {
  createSupportService,
  SUPPORT_BY_PLAN,
  SUPPORT_REQUESTS,
  SEVERITIES,
  type SupportService,
} from './service.js';
export { ContactsBodySchema, supportRoutes } from './routes.js';
