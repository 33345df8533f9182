// 150 nested regions (scf.execute_region) around a bcast op: parsed,
// verified, explained and compiled by --bcast-to-llvm without deep
// recursion trouble, and the result is right: [[1], [2]] + [10, 20, 30]
// = [[11, 21, 31], [12, 22, 32]] (by hand). Must finish (exit status 0)
// well within a minute.
// RUN: timeout 60 bcast-opt %s --bcast-to-llvm | timeout 60 %runner | FileCheck %s
// RUN: timeout 60 bcast-opt %s --bcast-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: timeout 60 bcast-opt %s --bcast-to-linalg | FileCheck %s --check-prefix=LINALG
// CHECK:      [11,   21,   31],
// CHECK-NEXT: [12,   22,   32]]
// EXPLAIN: remark: broadcast of a [2, 1] and b [3] to [2, 3]
// LINALG-NOT: bcast.
// LINALG: linalg.generic

func.func private @printMemrefF32(memref<*xf32>)

func.func @nested(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %v0 = scf.execute_region -> tensor<2x3xf32> {
    %v1 = scf.execute_region -> tensor<2x3xf32> {
      %v2 = scf.execute_region -> tensor<2x3xf32> {
        %v3 = scf.execute_region -> tensor<2x3xf32> {
          %v4 = scf.execute_region -> tensor<2x3xf32> {
            %v5 = scf.execute_region -> tensor<2x3xf32> {
              %v6 = scf.execute_region -> tensor<2x3xf32> {
                %v7 = scf.execute_region -> tensor<2x3xf32> {
                  %v8 = scf.execute_region -> tensor<2x3xf32> {
                    %v9 = scf.execute_region -> tensor<2x3xf32> {
                      %v10 = scf.execute_region -> tensor<2x3xf32> {
                        %v11 = scf.execute_region -> tensor<2x3xf32> {
                          %v12 = scf.execute_region -> tensor<2x3xf32> {
                            %v13 = scf.execute_region -> tensor<2x3xf32> {
                              %v14 = scf.execute_region -> tensor<2x3xf32> {
                                %v15 = scf.execute_region -> tensor<2x3xf32> {
                                  %v16 = scf.execute_region -> tensor<2x3xf32> {
                                    %v17 = scf.execute_region -> tensor<2x3xf32> {
                                      %v18 = scf.execute_region -> tensor<2x3xf32> {
                                        %v19 = scf.execute_region -> tensor<2x3xf32> {
                                          %v20 = scf.execute_region -> tensor<2x3xf32> {
                                            %v21 = scf.execute_region -> tensor<2x3xf32> {
                                              %v22 = scf.execute_region -> tensor<2x3xf32> {
                                                %v23 = scf.execute_region -> tensor<2x3xf32> {
                                                  %v24 = scf.execute_region -> tensor<2x3xf32> {
                                                    %v25 = scf.execute_region -> tensor<2x3xf32> {
                                                      %v26 = scf.execute_region -> tensor<2x3xf32> {
                                                        %v27 = scf.execute_region -> tensor<2x3xf32> {
                                                          %v28 = scf.execute_region -> tensor<2x3xf32> {
                                                            %v29 = scf.execute_region -> tensor<2x3xf32> {
                                                              %v30 = scf.execute_region -> tensor<2x3xf32> {
                                                                %v31 = scf.execute_region -> tensor<2x3xf32> {
                                                                  %v32 = scf.execute_region -> tensor<2x3xf32> {
                                                                    %v33 = scf.execute_region -> tensor<2x3xf32> {
                                                                      %v34 = scf.execute_region -> tensor<2x3xf32> {
                                                                        %v35 = scf.execute_region -> tensor<2x3xf32> {
                                                                          %v36 = scf.execute_region -> tensor<2x3xf32> {
                                                                            %v37 = scf.execute_region -> tensor<2x3xf32> {
                                                                              %v38 = scf.execute_region -> tensor<2x3xf32> {
                                                                                %v39 = scf.execute_region -> tensor<2x3xf32> {
                                                                                  %v40 = scf.execute_region -> tensor<2x3xf32> {
                                                                                    %v41 = scf.execute_region -> tensor<2x3xf32> {
                                                                                      %v42 = scf.execute_region -> tensor<2x3xf32> {
                                                                                        %v43 = scf.execute_region -> tensor<2x3xf32> {
                                                                                          %v44 = scf.execute_region -> tensor<2x3xf32> {
                                                                                            %v45 = scf.execute_region -> tensor<2x3xf32> {
                                                                                              %v46 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                %v47 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                  %v48 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                    %v49 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                      %v50 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                        %v51 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                          %v52 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                            %v53 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                              %v54 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                %v55 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                  %v56 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                    %v57 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                      %v58 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                        %v59 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                          %v60 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                            %v61 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                              %v62 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                %v63 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                  %v64 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                    %v65 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                      %v66 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                        %v67 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                          %v68 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                            %v69 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                              %v70 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                %v71 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                  %v72 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                    %v73 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                      %v74 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                        %v75 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                          %v76 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                            %v77 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                              %v78 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                %v79 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                  %v80 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                    %v81 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                      %v82 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                        %v83 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                          %v84 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                            %v85 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                              %v86 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                %v87 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                  %v88 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                    %v89 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                      %v90 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                        %v91 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                          %v92 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                            %v93 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                              %v94 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                %v95 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                  %v96 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                    %v97 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                      %v98 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                        %v99 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                          %v100 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                            %v101 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                              %v102 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                %v103 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                  %v104 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                    %v105 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                      %v106 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                        %v107 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                          %v108 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                            %v109 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                              %v110 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                %v111 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                  %v112 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                    %v113 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                      %v114 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                        %v115 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                          %v116 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                            %v117 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                              %v118 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                %v119 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                  %v120 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                    %v121 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                      %v122 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                        %v123 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                          %v124 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                            %v125 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                              %v126 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                %v127 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                  %v128 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                    %v129 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                      %v130 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                        %v131 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                          %v132 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                            %v133 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                              %v134 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                %v135 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                  %v136 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                    %v137 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                      %v138 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                        %v139 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                          %v140 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                            %v141 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                              %v142 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                %v143 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                  %v144 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                    %v145 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                      %v146 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                        %v147 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                          %v148 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                            %v149 = scf.execute_region -> tensor<2x3xf32> {
                                                                                                                                                                                                                                                                                                              %r = bcast.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                              scf.yield %r : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                                                                            scf.yield %v149 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                          }
                                                                                                                                                                                                                                                                                                          scf.yield %v148 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                                                                        scf.yield %v147 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                      }
                                                                                                                                                                                                                                                                                                      scf.yield %v146 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                                                                    scf.yield %v145 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                  }
                                                                                                                                                                                                                                                                                                  scf.yield %v144 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                                                                                scf.yield %v143 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                              }
                                                                                                                                                                                                                                                                                              scf.yield %v142 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                                                            scf.yield %v141 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                          }
                                                                                                                                                                                                                                                                                          scf.yield %v140 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                                                        scf.yield %v139 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                      }
                                                                                                                                                                                                                                                                                      scf.yield %v138 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                                                    scf.yield %v137 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                  }
                                                                                                                                                                                                                                                                                  scf.yield %v136 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                                                                scf.yield %v135 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                              }
                                                                                                                                                                                                                                                                              scf.yield %v134 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                                            scf.yield %v133 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                          }
                                                                                                                                                                                                                                                                          scf.yield %v132 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                                        scf.yield %v131 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                      }
                                                                                                                                                                                                                                                                      scf.yield %v130 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                                    scf.yield %v129 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                  }
                                                                                                                                                                                                                                                                  scf.yield %v128 : tensor<2x3xf32>
                                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                                                scf.yield %v127 : tensor<2x3xf32>
                                                                                                                                                                                                                                                              }
                                                                                                                                                                                                                                                              scf.yield %v126 : tensor<2x3xf32>
                                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                                            scf.yield %v125 : tensor<2x3xf32>
                                                                                                                                                                                                                                                          }
                                                                                                                                                                                                                                                          scf.yield %v124 : tensor<2x3xf32>
                                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                                        scf.yield %v123 : tensor<2x3xf32>
                                                                                                                                                                                                                                                      }
                                                                                                                                                                                                                                                      scf.yield %v122 : tensor<2x3xf32>
                                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                                    scf.yield %v121 : tensor<2x3xf32>
                                                                                                                                                                                                                                                  }
                                                                                                                                                                                                                                                  scf.yield %v120 : tensor<2x3xf32>
                                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                                scf.yield %v119 : tensor<2x3xf32>
                                                                                                                                                                                                                                              }
                                                                                                                                                                                                                                              scf.yield %v118 : tensor<2x3xf32>
                                                                                                                                                                                                                                            }
                                                                                                                                                                                                                                            scf.yield %v117 : tensor<2x3xf32>
                                                                                                                                                                                                                                          }
                                                                                                                                                                                                                                          scf.yield %v116 : tensor<2x3xf32>
                                                                                                                                                                                                                                        }
                                                                                                                                                                                                                                        scf.yield %v115 : tensor<2x3xf32>
                                                                                                                                                                                                                                      }
                                                                                                                                                                                                                                      scf.yield %v114 : tensor<2x3xf32>
                                                                                                                                                                                                                                    }
                                                                                                                                                                                                                                    scf.yield %v113 : tensor<2x3xf32>
                                                                                                                                                                                                                                  }
                                                                                                                                                                                                                                  scf.yield %v112 : tensor<2x3xf32>
                                                                                                                                                                                                                                }
                                                                                                                                                                                                                                scf.yield %v111 : tensor<2x3xf32>
                                                                                                                                                                                                                              }
                                                                                                                                                                                                                              scf.yield %v110 : tensor<2x3xf32>
                                                                                                                                                                                                                            }
                                                                                                                                                                                                                            scf.yield %v109 : tensor<2x3xf32>
                                                                                                                                                                                                                          }
                                                                                                                                                                                                                          scf.yield %v108 : tensor<2x3xf32>
                                                                                                                                                                                                                        }
                                                                                                                                                                                                                        scf.yield %v107 : tensor<2x3xf32>
                                                                                                                                                                                                                      }
                                                                                                                                                                                                                      scf.yield %v106 : tensor<2x3xf32>
                                                                                                                                                                                                                    }
                                                                                                                                                                                                                    scf.yield %v105 : tensor<2x3xf32>
                                                                                                                                                                                                                  }
                                                                                                                                                                                                                  scf.yield %v104 : tensor<2x3xf32>
                                                                                                                                                                                                                }
                                                                                                                                                                                                                scf.yield %v103 : tensor<2x3xf32>
                                                                                                                                                                                                              }
                                                                                                                                                                                                              scf.yield %v102 : tensor<2x3xf32>
                                                                                                                                                                                                            }
                                                                                                                                                                                                            scf.yield %v101 : tensor<2x3xf32>
                                                                                                                                                                                                          }
                                                                                                                                                                                                          scf.yield %v100 : tensor<2x3xf32>
                                                                                                                                                                                                        }
                                                                                                                                                                                                        scf.yield %v99 : tensor<2x3xf32>
                                                                                                                                                                                                      }
                                                                                                                                                                                                      scf.yield %v98 : tensor<2x3xf32>
                                                                                                                                                                                                    }
                                                                                                                                                                                                    scf.yield %v97 : tensor<2x3xf32>
                                                                                                                                                                                                  }
                                                                                                                                                                                                  scf.yield %v96 : tensor<2x3xf32>
                                                                                                                                                                                                }
                                                                                                                                                                                                scf.yield %v95 : tensor<2x3xf32>
                                                                                                                                                                                              }
                                                                                                                                                                                              scf.yield %v94 : tensor<2x3xf32>
                                                                                                                                                                                            }
                                                                                                                                                                                            scf.yield %v93 : tensor<2x3xf32>
                                                                                                                                                                                          }
                                                                                                                                                                                          scf.yield %v92 : tensor<2x3xf32>
                                                                                                                                                                                        }
                                                                                                                                                                                        scf.yield %v91 : tensor<2x3xf32>
                                                                                                                                                                                      }
                                                                                                                                                                                      scf.yield %v90 : tensor<2x3xf32>
                                                                                                                                                                                    }
                                                                                                                                                                                    scf.yield %v89 : tensor<2x3xf32>
                                                                                                                                                                                  }
                                                                                                                                                                                  scf.yield %v88 : tensor<2x3xf32>
                                                                                                                                                                                }
                                                                                                                                                                                scf.yield %v87 : tensor<2x3xf32>
                                                                                                                                                                              }
                                                                                                                                                                              scf.yield %v86 : tensor<2x3xf32>
                                                                                                                                                                            }
                                                                                                                                                                            scf.yield %v85 : tensor<2x3xf32>
                                                                                                                                                                          }
                                                                                                                                                                          scf.yield %v84 : tensor<2x3xf32>
                                                                                                                                                                        }
                                                                                                                                                                        scf.yield %v83 : tensor<2x3xf32>
                                                                                                                                                                      }
                                                                                                                                                                      scf.yield %v82 : tensor<2x3xf32>
                                                                                                                                                                    }
                                                                                                                                                                    scf.yield %v81 : tensor<2x3xf32>
                                                                                                                                                                  }
                                                                                                                                                                  scf.yield %v80 : tensor<2x3xf32>
                                                                                                                                                                }
                                                                                                                                                                scf.yield %v79 : tensor<2x3xf32>
                                                                                                                                                              }
                                                                                                                                                              scf.yield %v78 : tensor<2x3xf32>
                                                                                                                                                            }
                                                                                                                                                            scf.yield %v77 : tensor<2x3xf32>
                                                                                                                                                          }
                                                                                                                                                          scf.yield %v76 : tensor<2x3xf32>
                                                                                                                                                        }
                                                                                                                                                        scf.yield %v75 : tensor<2x3xf32>
                                                                                                                                                      }
                                                                                                                                                      scf.yield %v74 : tensor<2x3xf32>
                                                                                                                                                    }
                                                                                                                                                    scf.yield %v73 : tensor<2x3xf32>
                                                                                                                                                  }
                                                                                                                                                  scf.yield %v72 : tensor<2x3xf32>
                                                                                                                                                }
                                                                                                                                                scf.yield %v71 : tensor<2x3xf32>
                                                                                                                                              }
                                                                                                                                              scf.yield %v70 : tensor<2x3xf32>
                                                                                                                                            }
                                                                                                                                            scf.yield %v69 : tensor<2x3xf32>
                                                                                                                                          }
                                                                                                                                          scf.yield %v68 : tensor<2x3xf32>
                                                                                                                                        }
                                                                                                                                        scf.yield %v67 : tensor<2x3xf32>
                                                                                                                                      }
                                                                                                                                      scf.yield %v66 : tensor<2x3xf32>
                                                                                                                                    }
                                                                                                                                    scf.yield %v65 : tensor<2x3xf32>
                                                                                                                                  }
                                                                                                                                  scf.yield %v64 : tensor<2x3xf32>
                                                                                                                                }
                                                                                                                                scf.yield %v63 : tensor<2x3xf32>
                                                                                                                              }
                                                                                                                              scf.yield %v62 : tensor<2x3xf32>
                                                                                                                            }
                                                                                                                            scf.yield %v61 : tensor<2x3xf32>
                                                                                                                          }
                                                                                                                          scf.yield %v60 : tensor<2x3xf32>
                                                                                                                        }
                                                                                                                        scf.yield %v59 : tensor<2x3xf32>
                                                                                                                      }
                                                                                                                      scf.yield %v58 : tensor<2x3xf32>
                                                                                                                    }
                                                                                                                    scf.yield %v57 : tensor<2x3xf32>
                                                                                                                  }
                                                                                                                  scf.yield %v56 : tensor<2x3xf32>
                                                                                                                }
                                                                                                                scf.yield %v55 : tensor<2x3xf32>
                                                                                                              }
                                                                                                              scf.yield %v54 : tensor<2x3xf32>
                                                                                                            }
                                                                                                            scf.yield %v53 : tensor<2x3xf32>
                                                                                                          }
                                                                                                          scf.yield %v52 : tensor<2x3xf32>
                                                                                                        }
                                                                                                        scf.yield %v51 : tensor<2x3xf32>
                                                                                                      }
                                                                                                      scf.yield %v50 : tensor<2x3xf32>
                                                                                                    }
                                                                                                    scf.yield %v49 : tensor<2x3xf32>
                                                                                                  }
                                                                                                  scf.yield %v48 : tensor<2x3xf32>
                                                                                                }
                                                                                                scf.yield %v47 : tensor<2x3xf32>
                                                                                              }
                                                                                              scf.yield %v46 : tensor<2x3xf32>
                                                                                            }
                                                                                            scf.yield %v45 : tensor<2x3xf32>
                                                                                          }
                                                                                          scf.yield %v44 : tensor<2x3xf32>
                                                                                        }
                                                                                        scf.yield %v43 : tensor<2x3xf32>
                                                                                      }
                                                                                      scf.yield %v42 : tensor<2x3xf32>
                                                                                    }
                                                                                    scf.yield %v41 : tensor<2x3xf32>
                                                                                  }
                                                                                  scf.yield %v40 : tensor<2x3xf32>
                                                                                }
                                                                                scf.yield %v39 : tensor<2x3xf32>
                                                                              }
                                                                              scf.yield %v38 : tensor<2x3xf32>
                                                                            }
                                                                            scf.yield %v37 : tensor<2x3xf32>
                                                                          }
                                                                          scf.yield %v36 : tensor<2x3xf32>
                                                                        }
                                                                        scf.yield %v35 : tensor<2x3xf32>
                                                                      }
                                                                      scf.yield %v34 : tensor<2x3xf32>
                                                                    }
                                                                    scf.yield %v33 : tensor<2x3xf32>
                                                                  }
                                                                  scf.yield %v32 : tensor<2x3xf32>
                                                                }
                                                                scf.yield %v31 : tensor<2x3xf32>
                                                              }
                                                              scf.yield %v30 : tensor<2x3xf32>
                                                            }
                                                            scf.yield %v29 : tensor<2x3xf32>
                                                          }
                                                          scf.yield %v28 : tensor<2x3xf32>
                                                        }
                                                        scf.yield %v27 : tensor<2x3xf32>
                                                      }
                                                      scf.yield %v26 : tensor<2x3xf32>
                                                    }
                                                    scf.yield %v25 : tensor<2x3xf32>
                                                  }
                                                  scf.yield %v24 : tensor<2x3xf32>
                                                }
                                                scf.yield %v23 : tensor<2x3xf32>
                                              }
                                              scf.yield %v22 : tensor<2x3xf32>
                                            }
                                            scf.yield %v21 : tensor<2x3xf32>
                                          }
                                          scf.yield %v20 : tensor<2x3xf32>
                                        }
                                        scf.yield %v19 : tensor<2x3xf32>
                                      }
                                      scf.yield %v18 : tensor<2x3xf32>
                                    }
                                    scf.yield %v17 : tensor<2x3xf32>
                                  }
                                  scf.yield %v16 : tensor<2x3xf32>
                                }
                                scf.yield %v15 : tensor<2x3xf32>
                              }
                              scf.yield %v14 : tensor<2x3xf32>
                            }
                            scf.yield %v13 : tensor<2x3xf32>
                          }
                          scf.yield %v12 : tensor<2x3xf32>
                        }
                        scf.yield %v11 : tensor<2x3xf32>
                      }
                      scf.yield %v10 : tensor<2x3xf32>
                    }
                    scf.yield %v9 : tensor<2x3xf32>
                  }
                  scf.yield %v8 : tensor<2x3xf32>
                }
                scf.yield %v7 : tensor<2x3xf32>
              }
              scf.yield %v6 : tensor<2x3xf32>
            }
            scf.yield %v5 : tensor<2x3xf32>
          }
          scf.yield %v4 : tensor<2x3xf32>
        }
        scf.yield %v3 : tensor<2x3xf32>
      }
      scf.yield %v2 : tensor<2x3xf32>
    }
    scf.yield %v1 : tensor<2x3xf32>
  }
  return %v0 : tensor<2x3xf32>
}

func.func @main() {
  %a = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %r = call @nested(%a, %b) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = bufferization.to_buffer %r : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
