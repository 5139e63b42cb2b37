;; Headless run (emacs --batch): open AIRSPACE_FILE with the tested configuration, start eglot,
;; wait (bounded) for the diagnostics flymake shows, hover the first, ask airspace/scan, write
;; everything to AIRSPACE_OUT as JSON, quit.
(require 'json)
(require 'cl-lib)
(load (expand-file-name "airspace.el" (file-name-directory load-file-name)) nil t)
(setq airspace-command (json-parse-string (getenv "AIRSPACE_LSP_CMD") :array-type 'list))
;; AIRSPACE_SCENARIO: `bad-base' (a base the repository lacks, in airspace-settings: the server's
;; error message must reach eglot), `killed' (the server is killed once diagnostics arrive: eglot
;; must say so and reconnect), or the default.
(defvar collect-scenario (or (getenv "AIRSPACE_SCENARIO") ""))
(defvar collect-messages nil "What eglot told the user, newest first.")
(advice-add 'eglot--message :before (lambda (fmt &rest args) (push (apply #'format fmt args) collect-messages)))
(advice-add 'eglot--warn :before (lambda (fmt &rest args) (push (apply #'format fmt args) collect-messages)))
(when (equal collect-scenario "bad-base") (setq airspace-settings '(:base "no-such-base")))
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
      (let ((server (eglot-current-server)) (connected (float-time)))
        (when (equal collect-scenario "bad-base")
          (push (cons 'errorShown
                      (if (collect-wait (lambda () (cl-some (lambda (m) (string-match-p "cannot scan" m)) collect-messages)))
                          t :json-false))
                collect-out)
          ;; No diagnostics will come from a scan that fails: do not wait out the timeout for them.
          (setq collect-timeout 1))
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
              (push (cons 'advisories (length (plist-get scan :advisories))) collect-out))
            (when (equal collect-scenario "killed")
              ;; eglot reconnects only to a server that lived longer than eglot-autoreconnect (3 s).
              (while (< (- (float-time) connected) 4) (accept-process-output nil 0.1))
              (signal-process (process-id (jsonrpc--process server)) 'SIGTERM)
              (let ((again (collect-wait (lambda ()
                                           (let ((s (eglot-current-server)))
                                             (and s (not (eq s server)) (jsonrpc-running-p s) s))))))
                (push (cons 'restarted (if again t :json-false)) collect-out)
                (when again
                  (setq server again)
                  (flymake-start)
                  (push (cons 'receivedAgain (if (collect-wait (lambda () (flymake-diagnostics))) t :json-false)) collect-out))))))
        (push (cons 'messages (vconcat (reverse collect-messages))) collect-out)
        (eglot-shutdown server)))
  (error (push (cons 'error (error-message-string err)) collect-out)))

(with-temp-file (getenv "AIRSPACE_OUT")
  (insert (json-encode collect-out)))
(kill-emacs 0)
