;; Headless run (emacs --batch): open AIRSPACE_FILE with the tested configuration, start eglot,
;; wait (bounded) for the diagnostics flymake shows, hover the first, ask airspace/scan, write
;; everything to AIRSPACE_OUT as JSON, quit.
(require 'json)
(require 'cl-lib)
(load (expand-file-name "airspace.el" (file-name-directory load-file-name)) nil t)
(setq airspace-command (json-parse-string (getenv "AIRSPACE_LSP_CMD") :array-type 'list))
(setq eglot-sync-connect 30)
(setq eglot-autoshutdown t)
;; eglot signals workspace/didChangeConfiguration on connect, during the server's first scan: kept
;; on purpose, so this test also guards the hang that notification used to cause.

(defvar collect-timeout (/ (string-to-number (or (getenv "AIRSPACE_TIMEOUT_MS") "20000")) 1000.0))
(defvar collect-out (list (cons 'emacs emacs-version)))

(defun collect-wait (pred)
  "Process output until PRED is non-nil or the timeout passes; PRED's value."
  (let ((deadline (+ (float-time) collect-timeout)) (v nil))
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

(condition-case err
    (progn
      (find-file (getenv "AIRSPACE_FILE"))
      (push (cons 'mode (symbol-name major-mode)) collect-out)
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (collect-wait (lambda () (bound-and-true-p flymake-mode)))
        (flymake-start)
        (let ((received (collect-wait (lambda () (flymake-diagnostics)))))
          (push (cons 'received (if received t :json-false)) collect-out)
          (push (cons 'diagnostics
                      (vconcat
                       (mapcar (lambda (d)
                                 (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                                       (cons 'type (symbol-name (flymake-diagnostic-type d)))
                                       (cons 'text (flymake-diagnostic-text d))))
                               (flymake-diagnostics))))
                collect-out)
          (when received
            (save-excursion
              (goto-char (flymake-diagnostic-beg (car (flymake-diagnostics))))
              (let ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams) :timeout 10)))
                (push (cons 'hover (plist-get (plist-get hover :contents) :value)) collect-out)))
            (let ((scan (jsonrpc-request server :airspace/scan (make-hash-table) :timeout 10)))
              (push (cons 'advisories (length (plist-get scan :advisories))) collect-out))))
        (eglot-shutdown server)))
  (error (push (cons 'error (error-message-string err)) collect-out)))

(with-temp-file (getenv "AIRSPACE_OUT")
  (insert (json-encode collect-out)))
(kill-emacs 0)
