export {
  mcpRoutes,
  MCP_PATH,
  MCP_RESOURCE_METADATA_PATH,
  type McpRoutesOptions,
} from './routes.js';
export { mcpTools, type ToolDefinition } from './tools.js';
