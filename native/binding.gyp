# The native backend of the student GPT's engine (src/model/kernels-native.ts), built by native/build.mjs at install.
# kernels.cc is compiled once per instruction set, each copy in its own namespace; addon.cc picks one at load time from
# the CPU's features, so that the addon runs on any x86-64 CPU whatever CPU built it. Nothing but the compiler and
# Node's headers is needed: OpenBLAS, an option for the GEMMs, is looked up when the addon loads (addon.cc).
{
  'variables': {
    'kernel_cflags': ['-fPIC', '-O3', '-ffp-contract=fast', '-fno-math-errno', '-fno-trapping-math'],
  },
  'target_defaults': {
    'cflags_cc': ['-std=gnu++20'],
    'cflags_cc!': ['-std=gnu++17'],
  },
  'targets': [
    {
      'target_name': 'kernels_generic',
      'type': 'static_library',
      'sources': ['src/kernels.cc'],
      'defines': ['KERNEL_ISA=isa_generic', 'VW=4'],
      'cflags': ['<@(kernel_cflags)'],
    },
    {
      'target_name': 'canvasgym_native',
      'sources': ['src/addon.cc'],
      'dependencies': ['kernels_generic'],
      'cflags': ['-O3'],
      'libraries': ['-ldl'],
      'conditions': [
        ['target_arch=="x64"', {
          'dependencies': ['kernels_avx2', 'kernels_avx512'],
          'defines': ['CANVASGYM_X86_ISAS'],
        }],
      ],
    },
  ],
  'conditions': [
    ['target_arch=="x64"', {
      'targets': [
        {
          'target_name': 'kernels_avx2',
          'type': 'static_library',
          'sources': ['src/kernels.cc'],
          'defines': ['KERNEL_ISA=isa_avx2', 'VW=8'],
          'cflags': ['<@(kernel_cflags)', '-mavx2', '-mfma', '-mf16c'],
        },
        {
          'target_name': 'kernels_avx512',
          'type': 'static_library',
          'sources': ['src/kernels.cc'],
          'defines': ['KERNEL_ISA=isa_avx512', 'VW=16'],
          'cflags': ['<@(kernel_cflags)', '-mavx512f', '-mavx512vl', '-mavx512bw', '-mavx512dq', '-mavx2', '-mfma', '-mf16c'],
        },
      ],
    }],
  ],
}
