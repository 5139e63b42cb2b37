;;; airspace.el --- Airspace in Emacs 28+ with eglot (docs/editors.md; tested by emacs-lsp.test.ts)
;; Airspace is the language server of the worktree you edit in: eglot finds the project from the
;; nearest .git (a file in a linked worktree), so that worktree is "self".
(require 'eglot)

(defvar airspace-command '("airspace" "lsp" "--stdio")
  "How to start the Airspace language server.")

(defvar airspace-settings nil
  "Airspace settings (docs/editors.md) as a plist, e.g. (:base \"main\"); sent as initializationOptions.")

;; Emacs 28 has no TypeScript mode. Use typescript-mode (MELPA) or Emacs 29's typescript-ts-mode
;; where you have them; otherwise this minimal mode (no highlighting) lets eglot attach to .ts files.
(unless (fboundp 'typescript-mode)
  (define-derived-mode typescript-mode prog-mode "TypeScript"
    "Minimal TypeScript mode: enough for eglot, no highlighting or indentation.")
  (add-to-list 'auto-mode-alist '("\\.tsx?\\'" . typescript-mode)))

(add-to-list 'eglot-server-programs
             `((typescript-mode typescript-ts-mode tsx-ts-mode js-mode js-ts-mode python-mode python-ts-mode)
               . ,(lambda (&optional _interactive)
                    (if airspace-settings
                        (append airspace-command (list :initializationOptions (list :settings airspace-settings)))
                      airspace-command))))

(provide 'airspace)
