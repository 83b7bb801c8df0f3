;; The bound loops of the benchmark (harness/bounds.mjs says what each bounds), compiled by wat2wasm
;; (harness/bounds-wasm.mjs). They run on posenc's own memory, imported as bench.memory, so that a
;; bound and a kernel differ only in what they compute. Sizes are bytes; rmw and add take multiples
;; of 64, rot multiples of 2 * half with half a multiple of 32.
(module
  (import "bench" "memory" (memory 0))

  ;; fill(dst, n): n zero bytes at dst.
  (func (export "fill") (param $dst i32) (param $n i32)
    (memory.fill (local.get $dst) (i32.const 0) (local.get $n)))

  ;; copy(dst, src, n): n bytes from src to dst.
  (func (export "copy") (param $dst i32) (param $src i32) (param $n i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n)))

  ;; rmw(p, n): x <- x * -1 + 0 in place, four vectors (64 bytes) per iteration.
  (func (export "rmw") (param $p i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done
      (br_if $done (i32.eqz (local.get $n)))
      (loop $next
        (v128.store offset=0 (local.get $p)
          (f32x4.add (f32x4.mul (v128.load offset=0 (local.get $p)) (v128.const f32x4 -1 -1 -1 -1)) (v128.const f32x4 0 0 0 0)))
        (v128.store offset=16 (local.get $p)
          (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.const f32x4 -1 -1 -1 -1)) (v128.const f32x4 0 0 0 0)))
        (v128.store offset=32 (local.get $p)
          (f32x4.add (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.const f32x4 -1 -1 -1 -1)) (v128.const f32x4 0 0 0 0)))
        (v128.store offset=48 (local.get $p)
          (f32x4.add (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.const f32x4 -1 -1 -1 -1)) (v128.const f32x4 0 0 0 0)))
        (br_if $next (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 64))) (local.get $end))))))

  ;; add(d, s, n): d <- d + s in place, four vectors per iteration.
  (func (export "add") (param $d i32) (param $s i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $d) (local.get $n)))
    (block $done
      (br_if $done (i32.eqz (local.get $n)))
      (loop $next
        (v128.store offset=0 (local.get $d) (f32x4.add (v128.load offset=0 (local.get $d)) (v128.load offset=0 (local.get $s))))
        (v128.store offset=16 (local.get $d) (f32x4.add (v128.load offset=16 (local.get $d)) (v128.load offset=16 (local.get $s))))
        (v128.store offset=32 (local.get $d) (f32x4.add (v128.load offset=32 (local.get $d)) (v128.load offset=32 (local.get $s))))
        (v128.store offset=48 (local.get $d) (f32x4.add (v128.load offset=48 (local.get $d)) (v128.load offset=48 (local.get $s))))
        (local.set $s (i32.add (local.get $s) (i32.const 64)))
        (br_if $next (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 64))) (local.get $end))))))

  ;; rot(p, n, half): rows of 2 * half bytes, halves paired: (a, b) <- (a c - b s, a s + b c) with
  ;; c = 0.6, s = 0.8 (c^2 + s^2 = 1: repeated rotations stay bounded), two vectors of each half
  ;; (32 bytes) per iteration.
  (func (export "rot") (param $p i32) (param $n i32) (param $half i32)
    (local $end i32) (local $row_end i32) (local $hi i32) (local $a v128) (local $b v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done
      (br_if $done (i32.eqz (local.get $n)))
      (loop $rows
        (local.set $row_end (i32.add (local.get $p) (local.get $half)))
        (loop $pairs
          (local.set $hi (i32.add (local.get $p) (local.get $half)))
          (local.set $a (v128.load offset=0 (local.get $p)))
          (local.set $b (v128.load offset=0 (local.get $hi)))
          (v128.store offset=0 (local.get $p)
            (f32x4.sub (f32x4.mul (local.get $a) (v128.const f32x4 0.6 0.6 0.6 0.6)) (f32x4.mul (local.get $b) (v128.const f32x4 0.8 0.8 0.8 0.8))))
          (v128.store offset=0 (local.get $hi)
            (f32x4.add (f32x4.mul (local.get $a) (v128.const f32x4 0.8 0.8 0.8 0.8)) (f32x4.mul (local.get $b) (v128.const f32x4 0.6 0.6 0.6 0.6))))
          (local.set $a (v128.load offset=16 (local.get $p)))
          (local.set $b (v128.load offset=16 (local.get $hi)))
          (v128.store offset=16 (local.get $p)
            (f32x4.sub (f32x4.mul (local.get $a) (v128.const f32x4 0.6 0.6 0.6 0.6)) (f32x4.mul (local.get $b) (v128.const f32x4 0.8 0.8 0.8 0.8))))
          (v128.store offset=16 (local.get $hi)
            (f32x4.add (f32x4.mul (local.get $a) (v128.const f32x4 0.8 0.8 0.8 0.8)) (f32x4.mul (local.get $b) (v128.const f32x4 0.6 0.6 0.6 0.6))))
          (br_if $pairs (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 32))) (local.get $row_end))))
        (br_if $rows (i32.lt_u (local.tee $p (i32.add (local.get $p) (local.get $half))) (local.get $end)))))))
