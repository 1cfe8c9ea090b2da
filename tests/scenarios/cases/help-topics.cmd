help states
help exit
apropos preempt
apropos lazy --sort command -o name
apropos nothing-like-this
