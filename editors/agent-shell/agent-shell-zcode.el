;;; agent-shell-zcode.el --- ZCode agent configurations -*- lexical-binding: t; -*-

;; This package is free software; you can redistribute it and/or modify
;; it under the terms of the GNU General Public License as published by
;; the Free Software Foundation, either version 3, or (at your option)
;; any later version.

;;; Commentary:
;;
;; This file includes ZCode-specific configurations.  ZCode runs through
;; zcode-acp-server, an ACP agent for the ZCode CLI, which uses the ZCode
;; app's own sign-in (no API key).
;;

;;; Code:

(eval-when-compile
  (require 'cl-lib))
(require 'shell-maker)
(require 'acp)

(declare-function agent-shell-make-agent-config "agent-shell")
(autoload 'agent-shell-make-agent-config "agent-shell")
(declare-function agent-shell--make-acp-client "agent-shell")
(declare-function agent-shell--dwim "agent-shell")
(declare-function agent-shell-make-environment-variables "agent-shell")

(defcustom agent-shell-zcode-acp-command
  '("zcode-acp-server")
  "Command and parameters for the ZCode ACP server (zcode-acp-server).

The first element is the command name, and the rest are command parameters,
for example \"--mode\" \"plan\" or \"--lang\" \"zh\"."
  :type '(repeat string)
  :group 'agent-shell)

(defcustom agent-shell-zcode-environment
  nil
  "Environment variables for the ZCode ACP server.

When nil, the server inherits Emacs' environment: it needs HOME to find the
ZCode sign-in and PATH (or ZCODE_BIN=...) to find the ZCode CLI."
  :type '(repeat string)
  :group 'agent-shell)

(defun agent-shell-zcode-make-agent-config ()
  "Create a ZCode agent configuration."
  (agent-shell-make-agent-config
   :identifier 'zcode
   :mode-line-name "ZCode"
   :buffer-name "ZCode"
   :shell-prompt "ZCode> "
   :shell-prompt-regexp "ZCode> "
   :client-maker (lambda (buffer)
                   (agent-shell-zcode-make-client :buffer buffer))
   :install-instructions
   "Install zcode-acp-server (see https://github.com/zcode-acp/zcode-acp-server#install) and ZCode (https://zcode.z.ai), sign in to ZCode once, then run `zcode-acp-server doctor`."))

;;;###autoload
(defun agent-shell-zcode-start-agent ()
  "Start an interactive ZCode agent shell."
  (interactive)
  (agent-shell--dwim :config (agent-shell-zcode-make-agent-config)
                     :new-shell t))

(cl-defun agent-shell-zcode-make-client (&key buffer)
  "Create a ZCode ACP client with BUFFER as context."
  (unless buffer
    (error "Missing required argument: :buffer"))
  (agent-shell--make-acp-client :command (car agent-shell-zcode-acp-command)
                                :command-params (cdr agent-shell-zcode-acp-command)
                                :environment-variables
                                (or agent-shell-zcode-environment
                                    (agent-shell-make-environment-variables :inherit-env t))
                                :context-buffer buffer))

(provide 'agent-shell-zcode)

;;; agent-shell-zcode.el ends here
