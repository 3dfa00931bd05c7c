import { uuidv7 } from "./uuid7.ts";

/**
 * This bridge's v4 connection id (transport.ts v4ConversationSubscribeParamsSchema,
 * attachment begin/chunk/commit): "stdio 单管道场景由 host 为每个下游客户端分配",
 * and the bridge is the one client on its pipe. One per bridge process.
 */
export const CONNECTION_ID = `zcode-acp-conn-${uuidv7()}`;

/** How a desktop that follows a conversation live reads it (transport.ts clientMode). */
export const CLIENT_MODE = "desktop-continuous" as const;
