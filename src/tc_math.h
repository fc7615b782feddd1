/* ==== [tc:math] Scalar and block math for builtins ==== (stub: being written) */
