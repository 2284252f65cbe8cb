; inherits: typescript, jsx
; TSX tag query: TypeScript's patterns plus the JSX component uses.
