help states
help exit-status
apropos preempt
apropos lazy --sort command -o name
apropos nothing-like-this
