; Identifier uses of Python (grammar tree-sitter-python 0.25).
;
;   f(x)          (identifier)
;   self.method   (attribute object: (identifier) attribute: (identifier))
;
; A single-node pattern's role capture is its own name (one capture per identifier halves the
; cost of this, the largest query). Definition sites and the attribute half of `a.b` (reported as a member reference) are removed
; by the extractor.

(identifier) @reference.identifier
(attribute
  object: (_) @receiver
  attribute: (identifier) @name) @reference.member
