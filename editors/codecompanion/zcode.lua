-- lua/codecompanion/adapters/acp/zcode.lua, shaped like kimi_cli.lua. Also
-- register it under `adapters.acp` in lua/codecompanion/config.lua:
--   zcode = "zcode",
local helpers = require("codecompanion.adapters.acp.helpers")

---@class CodeCompanion.ACPAdapter.ZCode: CodeCompanion.ACPAdapter
return {
  name = "zcode",
  formatted_name = "ZCode",
  type = "acp",
  roles = {
    llm = "assistant",
    user = "user",
  },
  opts = {
    vision = true,
  },
  commands = {
    default = {
      "zcode-acp-server",
    },
  },
  defaults = {
    -- The ZCode app's own sign-in (`zcode login` or the desktop app): no API key.
    auth_method = "zcode-app",
    mcpServers = {},
    -- The first session starts the ZCode CLI, which can take a while cold.
    timeout = 120000, -- 2 minutes
  },
  parameters = {
    protocolVersion = 1,
    clientCapabilities = {
      fs = { readTextFile = true, writeTextFile = true },
    },
    clientInfo = {
      name = "CodeCompanion.nvim",
      version = "1.0.0",
    },
  },
  handlers = {
    ---@param self CodeCompanion.ACPAdapter
    ---@return boolean
    setup = function(self)
      return true
    end,

    ---@param self CodeCompanion.ACPAdapter
    ---@param messages table
    ---@param capabilities table
    ---@return table
    form_messages = function(self, messages, capabilities)
      return helpers.form_messages(self, messages, capabilities)
    end,

    ---Function to run when the request has completed. Useful to catch errors
    ---@param self CodeCompanion.ACPAdapter
    ---@param code number
    ---@return nil
    on_exit = function(self, code) end,
  },
}
