/* AES-CTR and AES-ECB from T-tables in three homes: one shared copy, constant
 * memory, and 32 shared copies laid out per lane, of T_0 and T_1 or of T_0
 * alone, as the GPU's shared memory allows (aes_lut_layout.h). One kernel
 * body serves all four layouts; they differ only in `lookup` (and T0T1 in
 * the rotation of T_2 and T_3) and in what a block writes to shared memory
 * before it starts. */
#include "aes_lut/aes_lut.h"
#include "aes_lut/aes_lut_layout.h"

/* T_0 of FIPS-197's S-box: {02}.S[x], S[x], S[x], {03}.S[x], high byte first. */
#define AES_LUT_T0                                                                                 \
    0xc66363a5u, 0xf87c7c84u, 0xee777799u, 0xf67b7b8du, 0xfff2f20du, 0xd66b6bbdu, 0xde6f6fb1u,     \
        0x91c5c554u, 0x60303050u, 0x02010103u, 0xce6767a9u, 0x562b2b7du, 0xe7fefe19u, 0xb5d7d762u, \
        0x4dababe6u, 0xec76769au, 0x8fcaca45u, 0x1f82829du, 0x89c9c940u, 0xfa7d7d87u, 0xeffafa15u, \
        0xb25959ebu, 0x8e4747c9u, 0xfbf0f00bu, 0x41adadecu, 0xb3d4d467u, 0x5fa2a2fdu, 0x45afafeau, \
        0x239c9cbfu, 0x53a4a4f7u, 0xe4727296u, 0x9bc0c05bu, 0x75b7b7c2u, 0xe1fdfd1cu, 0x3d9393aeu, \
        0x4c26266au, 0x6c36365au, 0x7e3f3f41u, 0xf5f7f702u, 0x83cccc4fu, 0x6834345cu, 0x51a5a5f4u, \
        0xd1e5e534u, 0xf9f1f108u, 0xe2717193u, 0xabd8d873u, 0x62313153u, 0x2a15153fu, 0x0804040cu, \
        0x95c7c752u, 0x46232365u, 0x9dc3c35eu, 0x30181828u, 0x379696a1u, 0x0a05050fu, 0x2f9a9ab5u, \
        0x0e070709u, 0x24121236u, 0x1b80809bu, 0xdfe2e23du, 0xcdebeb26u, 0x4e272769u, 0x7fb2b2cdu, \
        0xea75759fu, 0x1209091bu, 0x1d83839eu, 0x582c2c74u, 0x341a1a2eu, 0x361b1b2du, 0xdc6e6eb2u, \
        0xb45a5aeeu, 0x5ba0a0fbu, 0xa45252f6u, 0x763b3b4du, 0xb7d6d661u, 0x7db3b3ceu, 0x5229297bu, \
        0xdde3e33eu, 0x5e2f2f71u, 0x13848497u, 0xa65353f5u, 0xb9d1d168u, 0x00000000u, 0xc1eded2cu, \
        0x40202060u, 0xe3fcfc1fu, 0x79b1b1c8u, 0xb65b5bedu, 0xd46a6abeu, 0x8dcbcb46u, 0x67bebed9u, \
        0x7239394bu, 0x944a4adeu, 0x984c4cd4u, 0xb05858e8u, 0x85cfcf4au, 0xbbd0d06bu, 0xc5efef2au, \
        0x4faaaae5u, 0xedfbfb16u, 0x864343c5u, 0x9a4d4dd7u, 0x66333355u, 0x11858594u, 0x8a4545cfu, \
        0xe9f9f910u, 0x04020206u, 0xfe7f7f81u, 0xa05050f0u, 0x783c3c44u, 0x259f9fbau, 0x4ba8a8e3u, \
        0xa25151f3u, 0x5da3a3feu, 0x804040c0u, 0x058f8f8au, 0x3f9292adu, 0x219d9dbcu, 0x70383848u, \
        0xf1f5f504u, 0x63bcbcdfu, 0x77b6b6c1u, 0xafdada75u, 0x42212163u, 0x20101030u, 0xe5ffff1au, \
        0xfdf3f30eu, 0xbfd2d26du, 0x81cdcd4cu, 0x180c0c14u, 0x26131335u, 0xc3ecec2fu, 0xbe5f5fe1u, \
        0x359797a2u, 0x884444ccu, 0x2e171739u, 0x93c4c457u, 0x55a7a7f2u, 0xfc7e7e82u, 0x7a3d3d47u, \
        0xc86464acu, 0xba5d5de7u, 0x3219192bu, 0xe6737395u, 0xc06060a0u, 0x19818198u, 0x9e4f4fd1u, \
        0xa3dcdc7fu, 0x44222266u, 0x542a2a7eu, 0x3b9090abu, 0x0b888883u, 0x8c4646cau, 0xc7eeee29u, \
        0x6bb8b8d3u, 0x2814143cu, 0xa7dede79u, 0xbc5e5ee2u, 0x160b0b1du, 0xaddbdb76u, 0xdbe0e03bu, \
        0x64323256u, 0x743a3a4eu, 0x140a0a1eu, 0x924949dbu, 0x0c06060au, 0x4824246cu, 0xb85c5ce4u, \
        0x9fc2c25du, 0xbdd3d36eu, 0x43acacefu, 0xc46262a6u, 0x399191a8u, 0x319595a4u, 0xd3e4e437u, \
        0xf279798bu, 0xd5e7e732u, 0x8bc8c843u, 0x6e373759u, 0xda6d6db7u, 0x018d8d8cu, 0xb1d5d564u, \
        0x9c4e4ed2u, 0x49a9a9e0u, 0xd86c6cb4u, 0xac5656fau, 0xf3f4f407u, 0xcfeaea25u, 0xca6565afu, \
        0xf47a7a8eu, 0x47aeaee9u, 0x10080818u, 0x6fbabad5u, 0xf0787888u, 0x4a25256fu, 0x5c2e2e72u, \
        0x381c1c24u, 0x57a6a6f1u, 0x73b4b4c7u, 0x97c6c651u, 0xcbe8e823u, 0xa1dddd7cu, 0xe874749cu, \
        0x3e1f1f21u, 0x964b4bddu, 0x61bdbddcu, 0x0d8b8b86u, 0x0f8a8a85u, 0xe0707090u, 0x7c3e3e42u, \
        0x71b5b5c4u, 0xcc6666aau, 0x904848d8u, 0x06030305u, 0xf7f6f601u, 0x1c0e0e12u, 0xc26161a3u, \
        0x6a35355fu, 0xae5757f9u, 0x69b9b9d0u, 0x17868691u, 0x99c1c158u, 0x3a1d1d27u, 0x279e9eb9u, \
        0xd9e1e138u, 0xebf8f813u, 0x2b9898b3u, 0x22111133u, 0xd26969bbu, 0xa9d9d970u, 0x078e8e89u, \
        0x339494a7u, 0x2d9b9bb6u, 0x3c1e1e22u, 0x15878792u, 0xc9e9e920u, 0x87cece49u, 0xaa5555ffu, \
        0x50282878u, 0xa5dfdf7au, 0x038c8c8fu, 0x59a1a1f8u, 0x09898980u, 0x1a0d0d17u, 0x65bfbfdau, \
        0xd7e6e631u, 0x844242c6u, 0xd06868b8u, 0x824141c3u, 0x299999b0u, 0x5a2d2d77u, 0x1e0f0f11u, \
        0x7bb0b0cbu, 0xa85454fcu, 0x6dbbbbd6u, 0x2c16163au
/* For the host's key expansion (S[x] is byte 2 of T_0[x]), and for the blocks'
 * set-up in global memory. */
static const uint32_t t0_host[256] = {AES_LUT_T0};
static __device__ const uint32_t t0_global[256] = {AES_LUT_T0};

/* The constant variant's four tables, T_i = T_0 rotated right by 8i bits, as
 * one array: T_i[x] is word aes_lut_word(AES_LUT_LAYOUT_CONSTANT, i, x, lane). */
static __constant__ uint32_t t_constant[1024] = {
    0xc66363a5u, 0xf87c7c84u, 0xee777799u, 0xf67b7b8du, 0xfff2f20du, 0xd66b6bbdu, 0xde6f6fb1u,
    0x91c5c554u, 0x60303050u, 0x02010103u, 0xce6767a9u, 0x562b2b7du, 0xe7fefe19u, 0xb5d7d762u,
    0x4dababe6u, 0xec76769au, 0x8fcaca45u, 0x1f82829du, 0x89c9c940u, 0xfa7d7d87u, 0xeffafa15u,
    0xb25959ebu, 0x8e4747c9u, 0xfbf0f00bu, 0x41adadecu, 0xb3d4d467u, 0x5fa2a2fdu, 0x45afafeau,
    0x239c9cbfu, 0x53a4a4f7u, 0xe4727296u, 0x9bc0c05bu, 0x75b7b7c2u, 0xe1fdfd1cu, 0x3d9393aeu,
    0x4c26266au, 0x6c36365au, 0x7e3f3f41u, 0xf5f7f702u, 0x83cccc4fu, 0x6834345cu, 0x51a5a5f4u,
    0xd1e5e534u, 0xf9f1f108u, 0xe2717193u, 0xabd8d873u, 0x62313153u, 0x2a15153fu, 0x0804040cu,
    0x95c7c752u, 0x46232365u, 0x9dc3c35eu, 0x30181828u, 0x379696a1u, 0x0a05050fu, 0x2f9a9ab5u,
    0x0e070709u, 0x24121236u, 0x1b80809bu, 0xdfe2e23du, 0xcdebeb26u, 0x4e272769u, 0x7fb2b2cdu,
    0xea75759fu, 0x1209091bu, 0x1d83839eu, 0x582c2c74u, 0x341a1a2eu, 0x361b1b2du, 0xdc6e6eb2u,
    0xb45a5aeeu, 0x5ba0a0fbu, 0xa45252f6u, 0x763b3b4du, 0xb7d6d661u, 0x7db3b3ceu, 0x5229297bu,
    0xdde3e33eu, 0x5e2f2f71u, 0x13848497u, 0xa65353f5u, 0xb9d1d168u, 0x00000000u, 0xc1eded2cu,
    0x40202060u, 0xe3fcfc1fu, 0x79b1b1c8u, 0xb65b5bedu, 0xd46a6abeu, 0x8dcbcb46u, 0x67bebed9u,
    0x7239394bu, 0x944a4adeu, 0x984c4cd4u, 0xb05858e8u, 0x85cfcf4au, 0xbbd0d06bu, 0xc5efef2au,
    0x4faaaae5u, 0xedfbfb16u, 0x864343c5u, 0x9a4d4dd7u, 0x66333355u, 0x11858594u, 0x8a4545cfu,
    0xe9f9f910u, 0x04020206u, 0xfe7f7f81u, 0xa05050f0u, 0x783c3c44u, 0x259f9fbau, 0x4ba8a8e3u,
    0xa25151f3u, 0x5da3a3feu, 0x804040c0u, 0x058f8f8au, 0x3f9292adu, 0x219d9dbcu, 0x70383848u,
    0xf1f5f504u, 0x63bcbcdfu, 0x77b6b6c1u, 0xafdada75u, 0x42212163u, 0x20101030u, 0xe5ffff1au,
    0xfdf3f30eu, 0xbfd2d26du, 0x81cdcd4cu, 0x180c0c14u, 0x26131335u, 0xc3ecec2fu, 0xbe5f5fe1u,
    0x359797a2u, 0x884444ccu, 0x2e171739u, 0x93c4c457u, 0x55a7a7f2u, 0xfc7e7e82u, 0x7a3d3d47u,
    0xc86464acu, 0xba5d5de7u, 0x3219192bu, 0xe6737395u, 0xc06060a0u, 0x19818198u, 0x9e4f4fd1u,
    0xa3dcdc7fu, 0x44222266u, 0x542a2a7eu, 0x3b9090abu, 0x0b888883u, 0x8c4646cau, 0xc7eeee29u,
    0x6bb8b8d3u, 0x2814143cu, 0xa7dede79u, 0xbc5e5ee2u, 0x160b0b1du, 0xaddbdb76u, 0xdbe0e03bu,
    0x64323256u, 0x743a3a4eu, 0x140a0a1eu, 0x924949dbu, 0x0c06060au, 0x4824246cu, 0xb85c5ce4u,
    0x9fc2c25du, 0xbdd3d36eu, 0x43acacefu, 0xc46262a6u, 0x399191a8u, 0x319595a4u, 0xd3e4e437u,
    0xf279798bu, 0xd5e7e732u, 0x8bc8c843u, 0x6e373759u, 0xda6d6db7u, 0x018d8d8cu, 0xb1d5d564u,
    0x9c4e4ed2u, 0x49a9a9e0u, 0xd86c6cb4u, 0xac5656fau, 0xf3f4f407u, 0xcfeaea25u, 0xca6565afu,
    0xf47a7a8eu, 0x47aeaee9u, 0x10080818u, 0x6fbabad5u, 0xf0787888u, 0x4a25256fu, 0x5c2e2e72u,
    0x381c1c24u, 0x57a6a6f1u, 0x73b4b4c7u, 0x97c6c651u, 0xcbe8e823u, 0xa1dddd7cu, 0xe874749cu,
    0x3e1f1f21u, 0x964b4bddu, 0x61bdbddcu, 0x0d8b8b86u, 0x0f8a8a85u, 0xe0707090u, 0x7c3e3e42u,
    0x71b5b5c4u, 0xcc6666aau, 0x904848d8u, 0x06030305u, 0xf7f6f601u, 0x1c0e0e12u, 0xc26161a3u,
    0x6a35355fu, 0xae5757f9u, 0x69b9b9d0u, 0x17868691u, 0x99c1c158u, 0x3a1d1d27u, 0x279e9eb9u,
    0xd9e1e138u, 0xebf8f813u, 0x2b9898b3u, 0x22111133u, 0xd26969bbu, 0xa9d9d970u, 0x078e8e89u,
    0x339494a7u, 0x2d9b9bb6u, 0x3c1e1e22u, 0x15878792u, 0xc9e9e920u, 0x87cece49u, 0xaa5555ffu,
    0x50282878u, 0xa5dfdf7au, 0x038c8c8fu, 0x59a1a1f8u, 0x09898980u, 0x1a0d0d17u, 0x65bfbfdau,
    0xd7e6e631u, 0x844242c6u, 0xd06868b8u, 0x824141c3u, 0x299999b0u, 0x5a2d2d77u, 0x1e0f0f11u,
    0x7bb0b0cbu, 0xa85454fcu, 0x6dbbbbd6u, 0x2c16163au, 0xa5c66363u, 0x84f87c7cu, 0x99ee7777u,
    0x8df67b7bu, 0x0dfff2f2u, 0xbdd66b6bu, 0xb1de6f6fu, 0x5491c5c5u, 0x50603030u, 0x03020101u,
    0xa9ce6767u, 0x7d562b2bu, 0x19e7fefeu, 0x62b5d7d7u, 0xe64dababu, 0x9aec7676u, 0x458fcacau,
    0x9d1f8282u, 0x4089c9c9u, 0x87fa7d7du, 0x15effafau, 0xebb25959u, 0xc98e4747u, 0x0bfbf0f0u,
    0xec41adadu, 0x67b3d4d4u, 0xfd5fa2a2u, 0xea45afafu, 0xbf239c9cu, 0xf753a4a4u, 0x96e47272u,
    0x5b9bc0c0u, 0xc275b7b7u, 0x1ce1fdfdu, 0xae3d9393u, 0x6a4c2626u, 0x5a6c3636u, 0x417e3f3fu,
    0x02f5f7f7u, 0x4f83ccccu, 0x5c683434u, 0xf451a5a5u, 0x34d1e5e5u, 0x08f9f1f1u, 0x93e27171u,
    0x73abd8d8u, 0x53623131u, 0x3f2a1515u, 0x0c080404u, 0x5295c7c7u, 0x65462323u, 0x5e9dc3c3u,
    0x28301818u, 0xa1379696u, 0x0f0a0505u, 0xb52f9a9au, 0x090e0707u, 0x36241212u, 0x9b1b8080u,
    0x3ddfe2e2u, 0x26cdebebu, 0x694e2727u, 0xcd7fb2b2u, 0x9fea7575u, 0x1b120909u, 0x9e1d8383u,
    0x74582c2cu, 0x2e341a1au, 0x2d361b1bu, 0xb2dc6e6eu, 0xeeb45a5au, 0xfb5ba0a0u, 0xf6a45252u,
    0x4d763b3bu, 0x61b7d6d6u, 0xce7db3b3u, 0x7b522929u, 0x3edde3e3u, 0x715e2f2fu, 0x97138484u,
    0xf5a65353u, 0x68b9d1d1u, 0x00000000u, 0x2cc1ededu, 0x60402020u, 0x1fe3fcfcu, 0xc879b1b1u,
    0xedb65b5bu, 0xbed46a6au, 0x468dcbcbu, 0xd967bebeu, 0x4b723939u, 0xde944a4au, 0xd4984c4cu,
    0xe8b05858u, 0x4a85cfcfu, 0x6bbbd0d0u, 0x2ac5efefu, 0xe54faaaau, 0x16edfbfbu, 0xc5864343u,
    0xd79a4d4du, 0x55663333u, 0x94118585u, 0xcf8a4545u, 0x10e9f9f9u, 0x06040202u, 0x81fe7f7fu,
    0xf0a05050u, 0x44783c3cu, 0xba259f9fu, 0xe34ba8a8u, 0xf3a25151u, 0xfe5da3a3u, 0xc0804040u,
    0x8a058f8fu, 0xad3f9292u, 0xbc219d9du, 0x48703838u, 0x04f1f5f5u, 0xdf63bcbcu, 0xc177b6b6u,
    0x75afdadau, 0x63422121u, 0x30201010u, 0x1ae5ffffu, 0x0efdf3f3u, 0x6dbfd2d2u, 0x4c81cdcdu,
    0x14180c0cu, 0x35261313u, 0x2fc3ececu, 0xe1be5f5fu, 0xa2359797u, 0xcc884444u, 0x392e1717u,
    0x5793c4c4u, 0xf255a7a7u, 0x82fc7e7eu, 0x477a3d3du, 0xacc86464u, 0xe7ba5d5du, 0x2b321919u,
    0x95e67373u, 0xa0c06060u, 0x98198181u, 0xd19e4f4fu, 0x7fa3dcdcu, 0x66442222u, 0x7e542a2au,
    0xab3b9090u, 0x830b8888u, 0xca8c4646u, 0x29c7eeeeu, 0xd36bb8b8u, 0x3c281414u, 0x79a7dedeu,
    0xe2bc5e5eu, 0x1d160b0bu, 0x76addbdbu, 0x3bdbe0e0u, 0x56643232u, 0x4e743a3au, 0x1e140a0au,
    0xdb924949u, 0x0a0c0606u, 0x6c482424u, 0xe4b85c5cu, 0x5d9fc2c2u, 0x6ebdd3d3u, 0xef43acacu,
    0xa6c46262u, 0xa8399191u, 0xa4319595u, 0x37d3e4e4u, 0x8bf27979u, 0x32d5e7e7u, 0x438bc8c8u,
    0x596e3737u, 0xb7da6d6du, 0x8c018d8du, 0x64b1d5d5u, 0xd29c4e4eu, 0xe049a9a9u, 0xb4d86c6cu,
    0xfaac5656u, 0x07f3f4f4u, 0x25cfeaeau, 0xafca6565u, 0x8ef47a7au, 0xe947aeaeu, 0x18100808u,
    0xd56fbabau, 0x88f07878u, 0x6f4a2525u, 0x725c2e2eu, 0x24381c1cu, 0xf157a6a6u, 0xc773b4b4u,
    0x5197c6c6u, 0x23cbe8e8u, 0x7ca1ddddu, 0x9ce87474u, 0x213e1f1fu, 0xdd964b4bu, 0xdc61bdbdu,
    0x860d8b8bu, 0x850f8a8au, 0x90e07070u, 0x427c3e3eu, 0xc471b5b5u, 0xaacc6666u, 0xd8904848u,
    0x05060303u, 0x01f7f6f6u, 0x121c0e0eu, 0xa3c26161u, 0x5f6a3535u, 0xf9ae5757u, 0xd069b9b9u,
    0x91178686u, 0x5899c1c1u, 0x273a1d1du, 0xb9279e9eu, 0x38d9e1e1u, 0x13ebf8f8u, 0xb32b9898u,
    0x33221111u, 0xbbd26969u, 0x70a9d9d9u, 0x89078e8eu, 0xa7339494u, 0xb62d9b9bu, 0x223c1e1eu,
    0x92158787u, 0x20c9e9e9u, 0x4987ceceu, 0xffaa5555u, 0x78502828u, 0x7aa5dfdfu, 0x8f038c8cu,
    0xf859a1a1u, 0x80098989u, 0x171a0d0du, 0xda65bfbfu, 0x31d7e6e6u, 0xc6844242u, 0xb8d06868u,
    0xc3824141u, 0xb0299999u, 0x775a2d2du, 0x111e0f0fu, 0xcb7bb0b0u, 0xfca85454u, 0xd66dbbbbu,
    0x3a2c1616u, 0x63a5c663u, 0x7c84f87cu, 0x7799ee77u, 0x7b8df67bu, 0xf20dfff2u, 0x6bbdd66bu,
    0x6fb1de6fu, 0xc55491c5u, 0x30506030u, 0x01030201u, 0x67a9ce67u, 0x2b7d562bu, 0xfe19e7feu,
    0xd762b5d7u, 0xabe64dabu, 0x769aec76u, 0xca458fcau, 0x829d1f82u, 0xc94089c9u, 0x7d87fa7du,
    0xfa15effau, 0x59ebb259u, 0x47c98e47u, 0xf00bfbf0u, 0xadec41adu, 0xd467b3d4u, 0xa2fd5fa2u,
    0xafea45afu, 0x9cbf239cu, 0xa4f753a4u, 0x7296e472u, 0xc05b9bc0u, 0xb7c275b7u, 0xfd1ce1fdu,
    0x93ae3d93u, 0x266a4c26u, 0x365a6c36u, 0x3f417e3fu, 0xf702f5f7u, 0xcc4f83ccu, 0x345c6834u,
    0xa5f451a5u, 0xe534d1e5u, 0xf108f9f1u, 0x7193e271u, 0xd873abd8u, 0x31536231u, 0x153f2a15u,
    0x040c0804u, 0xc75295c7u, 0x23654623u, 0xc35e9dc3u, 0x18283018u, 0x96a13796u, 0x050f0a05u,
    0x9ab52f9au, 0x07090e07u, 0x12362412u, 0x809b1b80u, 0xe23ddfe2u, 0xeb26cdebu, 0x27694e27u,
    0xb2cd7fb2u, 0x759fea75u, 0x091b1209u, 0x839e1d83u, 0x2c74582cu, 0x1a2e341au, 0x1b2d361bu,
    0x6eb2dc6eu, 0x5aeeb45au, 0xa0fb5ba0u, 0x52f6a452u, 0x3b4d763bu, 0xd661b7d6u, 0xb3ce7db3u,
    0x297b5229u, 0xe33edde3u, 0x2f715e2fu, 0x84971384u, 0x53f5a653u, 0xd168b9d1u, 0x00000000u,
    0xed2cc1edu, 0x20604020u, 0xfc1fe3fcu, 0xb1c879b1u, 0x5bedb65bu, 0x6abed46au, 0xcb468dcbu,
    0xbed967beu, 0x394b7239u, 0x4ade944au, 0x4cd4984cu, 0x58e8b058u, 0xcf4a85cfu, 0xd06bbbd0u,
    0xef2ac5efu, 0xaae54faau, 0xfb16edfbu, 0x43c58643u, 0x4dd79a4du, 0x33556633u, 0x85941185u,
    0x45cf8a45u, 0xf910e9f9u, 0x02060402u, 0x7f81fe7fu, 0x50f0a050u, 0x3c44783cu, 0x9fba259fu,
    0xa8e34ba8u, 0x51f3a251u, 0xa3fe5da3u, 0x40c08040u, 0x8f8a058fu, 0x92ad3f92u, 0x9dbc219du,
    0x38487038u, 0xf504f1f5u, 0xbcdf63bcu, 0xb6c177b6u, 0xda75afdau, 0x21634221u, 0x10302010u,
    0xff1ae5ffu, 0xf30efdf3u, 0xd26dbfd2u, 0xcd4c81cdu, 0x0c14180cu, 0x13352613u, 0xec2fc3ecu,
    0x5fe1be5fu, 0x97a23597u, 0x44cc8844u, 0x17392e17u, 0xc45793c4u, 0xa7f255a7u, 0x7e82fc7eu,
    0x3d477a3du, 0x64acc864u, 0x5de7ba5du, 0x192b3219u, 0x7395e673u, 0x60a0c060u, 0x81981981u,
    0x4fd19e4fu, 0xdc7fa3dcu, 0x22664422u, 0x2a7e542au, 0x90ab3b90u, 0x88830b88u, 0x46ca8c46u,
    0xee29c7eeu, 0xb8d36bb8u, 0x143c2814u, 0xde79a7deu, 0x5ee2bc5eu, 0x0b1d160bu, 0xdb76addbu,
    0xe03bdbe0u, 0x32566432u, 0x3a4e743au, 0x0a1e140au, 0x49db9249u, 0x060a0c06u, 0x246c4824u,
    0x5ce4b85cu, 0xc25d9fc2u, 0xd36ebdd3u, 0xacef43acu, 0x62a6c462u, 0x91a83991u, 0x95a43195u,
    0xe437d3e4u, 0x798bf279u, 0xe732d5e7u, 0xc8438bc8u, 0x37596e37u, 0x6db7da6du, 0x8d8c018du,
    0xd564b1d5u, 0x4ed29c4eu, 0xa9e049a9u, 0x6cb4d86cu, 0x56faac56u, 0xf407f3f4u, 0xea25cfeau,
    0x65afca65u, 0x7a8ef47au, 0xaee947aeu, 0x08181008u, 0xbad56fbau, 0x7888f078u, 0x256f4a25u,
    0x2e725c2eu, 0x1c24381cu, 0xa6f157a6u, 0xb4c773b4u, 0xc65197c6u, 0xe823cbe8u, 0xdd7ca1ddu,
    0x749ce874u, 0x1f213e1fu, 0x4bdd964bu, 0xbddc61bdu, 0x8b860d8bu, 0x8a850f8au, 0x7090e070u,
    0x3e427c3eu, 0xb5c471b5u, 0x66aacc66u, 0x48d89048u, 0x03050603u, 0xf601f7f6u, 0x0e121c0eu,
    0x61a3c261u, 0x355f6a35u, 0x57f9ae57u, 0xb9d069b9u, 0x86911786u, 0xc15899c1u, 0x1d273a1du,
    0x9eb9279eu, 0xe138d9e1u, 0xf813ebf8u, 0x98b32b98u, 0x11332211u, 0x69bbd269u, 0xd970a9d9u,
    0x8e89078eu, 0x94a73394u, 0x9bb62d9bu, 0x1e223c1eu, 0x87921587u, 0xe920c9e9u, 0xce4987ceu,
    0x55ffaa55u, 0x28785028u, 0xdf7aa5dfu, 0x8c8f038cu, 0xa1f859a1u, 0x89800989u, 0x0d171a0du,
    0xbfda65bfu, 0xe631d7e6u, 0x42c68442u, 0x68b8d068u, 0x41c38241u, 0x99b02999u, 0x2d775a2du,
    0x0f111e0fu, 0xb0cb7bb0u, 0x54fca854u, 0xbbd66dbbu, 0x163a2c16u, 0x6363a5c6u, 0x7c7c84f8u,
    0x777799eeu, 0x7b7b8df6u, 0xf2f20dffu, 0x6b6bbdd6u, 0x6f6fb1deu, 0xc5c55491u, 0x30305060u,
    0x01010302u, 0x6767a9ceu, 0x2b2b7d56u, 0xfefe19e7u, 0xd7d762b5u, 0xababe64du, 0x76769aecu,
    0xcaca458fu, 0x82829d1fu, 0xc9c94089u, 0x7d7d87fau, 0xfafa15efu, 0x5959ebb2u, 0x4747c98eu,
    0xf0f00bfbu, 0xadadec41u, 0xd4d467b3u, 0xa2a2fd5fu, 0xafafea45u, 0x9c9cbf23u, 0xa4a4f753u,
    0x727296e4u, 0xc0c05b9bu, 0xb7b7c275u, 0xfdfd1ce1u, 0x9393ae3du, 0x26266a4cu, 0x36365a6cu,
    0x3f3f417eu, 0xf7f702f5u, 0xcccc4f83u, 0x34345c68u, 0xa5a5f451u, 0xe5e534d1u, 0xf1f108f9u,
    0x717193e2u, 0xd8d873abu, 0x31315362u, 0x15153f2au, 0x04040c08u, 0xc7c75295u, 0x23236546u,
    0xc3c35e9du, 0x18182830u, 0x9696a137u, 0x05050f0au, 0x9a9ab52fu, 0x0707090eu, 0x12123624u,
    0x80809b1bu, 0xe2e23ddfu, 0xebeb26cdu, 0x2727694eu, 0xb2b2cd7fu, 0x75759feau, 0x09091b12u,
    0x83839e1du, 0x2c2c7458u, 0x1a1a2e34u, 0x1b1b2d36u, 0x6e6eb2dcu, 0x5a5aeeb4u, 0xa0a0fb5bu,
    0x5252f6a4u, 0x3b3b4d76u, 0xd6d661b7u, 0xb3b3ce7du, 0x29297b52u, 0xe3e33eddu, 0x2f2f715eu,
    0x84849713u, 0x5353f5a6u, 0xd1d168b9u, 0x00000000u, 0xeded2cc1u, 0x20206040u, 0xfcfc1fe3u,
    0xb1b1c879u, 0x5b5bedb6u, 0x6a6abed4u, 0xcbcb468du, 0xbebed967u, 0x39394b72u, 0x4a4ade94u,
    0x4c4cd498u, 0x5858e8b0u, 0xcfcf4a85u, 0xd0d06bbbu, 0xefef2ac5u, 0xaaaae54fu, 0xfbfb16edu,
    0x4343c586u, 0x4d4dd79au, 0x33335566u, 0x85859411u, 0x4545cf8au, 0xf9f910e9u, 0x02020604u,
    0x7f7f81feu, 0x5050f0a0u, 0x3c3c4478u, 0x9f9fba25u, 0xa8a8e34bu, 0x5151f3a2u, 0xa3a3fe5du,
    0x4040c080u, 0x8f8f8a05u, 0x9292ad3fu, 0x9d9dbc21u, 0x38384870u, 0xf5f504f1u, 0xbcbcdf63u,
    0xb6b6c177u, 0xdada75afu, 0x21216342u, 0x10103020u, 0xffff1ae5u, 0xf3f30efdu, 0xd2d26dbfu,
    0xcdcd4c81u, 0x0c0c1418u, 0x13133526u, 0xecec2fc3u, 0x5f5fe1beu, 0x9797a235u, 0x4444cc88u,
    0x1717392eu, 0xc4c45793u, 0xa7a7f255u, 0x7e7e82fcu, 0x3d3d477au, 0x6464acc8u, 0x5d5de7bau,
    0x19192b32u, 0x737395e6u, 0x6060a0c0u, 0x81819819u, 0x4f4fd19eu, 0xdcdc7fa3u, 0x22226644u,
    0x2a2a7e54u, 0x9090ab3bu, 0x8888830bu, 0x4646ca8cu, 0xeeee29c7u, 0xb8b8d36bu, 0x14143c28u,
    0xdede79a7u, 0x5e5ee2bcu, 0x0b0b1d16u, 0xdbdb76adu, 0xe0e03bdbu, 0x32325664u, 0x3a3a4e74u,
    0x0a0a1e14u, 0x4949db92u, 0x06060a0cu, 0x24246c48u, 0x5c5ce4b8u, 0xc2c25d9fu, 0xd3d36ebdu,
    0xacacef43u, 0x6262a6c4u, 0x9191a839u, 0x9595a431u, 0xe4e437d3u, 0x79798bf2u, 0xe7e732d5u,
    0xc8c8438bu, 0x3737596eu, 0x6d6db7dau, 0x8d8d8c01u, 0xd5d564b1u, 0x4e4ed29cu, 0xa9a9e049u,
    0x6c6cb4d8u, 0x5656faacu, 0xf4f407f3u, 0xeaea25cfu, 0x6565afcau, 0x7a7a8ef4u, 0xaeaee947u,
    0x08081810u, 0xbabad56fu, 0x787888f0u, 0x25256f4au, 0x2e2e725cu, 0x1c1c2438u, 0xa6a6f157u,
    0xb4b4c773u, 0xc6c65197u, 0xe8e823cbu, 0xdddd7ca1u, 0x74749ce8u, 0x1f1f213eu, 0x4b4bdd96u,
    0xbdbddc61u, 0x8b8b860du, 0x8a8a850fu, 0x707090e0u, 0x3e3e427cu, 0xb5b5c471u, 0x6666aaccu,
    0x4848d890u, 0x03030506u, 0xf6f601f7u, 0x0e0e121cu, 0x6161a3c2u, 0x35355f6au, 0x5757f9aeu,
    0xb9b9d069u, 0x86869117u, 0xc1c15899u, 0x1d1d273au, 0x9e9eb927u, 0xe1e138d9u, 0xf8f813ebu,
    0x9898b32bu, 0x11113322u, 0x6969bbd2u, 0xd9d970a9u, 0x8e8e8907u, 0x9494a733u, 0x9b9bb62du,
    0x1e1e223cu, 0x87879215u, 0xe9e920c9u, 0xcece4987u, 0x5555ffaau, 0x28287850u, 0xdfdf7aa5u,
    0x8c8c8f03u, 0xa1a1f859u, 0x89898009u, 0x0d0d171au, 0xbfbfda65u, 0xe6e631d7u, 0x4242c684u,
    0x6868b8d0u, 0x4141c382u, 0x9999b029u, 0x2d2d775au, 0x0f0f111eu, 0xb0b0cb7bu, 0x5454fca8u,
    0xbbbbd66du, 0x16163a2cu,
};

/* What the kernel is given: the round keys (FIPS-197's w[i] as big-endian
 * words) as a parameter, so each is a constant-bank operand that every lane
 * reads at once; the first counter block as two 64-bit halves. */
struct aes_lut_params {
    uint32_t rk[60];
    uint64_t ctr_hi, ctr_lo;
    int64_t n;      /* bytes */
    int64_t blocks; /* 16-byte blocks, the last one perhaps partial */
    int64_t share;  /* tiles a block */
};

/* A block's tables (none for the constant variant): dynamic shared memory,
 * since T0T1's 64 KiB is past the 48 KiB a static array may have. */
extern __shared__ uint4 aes_lut_smem[];

/* Where this lane's lookups start: `mine`, the 32-bit shared-memory address
 * of the lane's copy (shared, T0; nvcc then adds the lane's part once, not
 * once a lookup); `part[t]`, T0T1's byte 0 of the address of its T_t,
 * 4 * aes_lut_word(L, t, 0, lane) (aes_lut_byte_perm_address). */
struct aes_lut_lane {
    uint32_t mine;
    uint32_t part[2];
};

static __device__ __forceinline__ uint32_t bswap(uint32_t x)
{
    return __byte_perm(x, 0, 0x0123);
}

static __device__ __forceinline__ uint32_t rotate16(uint32_t x)
{
    return __byte_perm(x, x, 0x1032);
}

/* T_table[x], x byte k (0: the lowest) of w, as this lane reads it. T0T1
 * holds T_0 and T_1 and returns T_{table % 2}[x]: T_2 and T_3 are those
 * rotated by 16 bits, which the round applies once to their sum. Its address
 * is one PRMT: x into byte 1 of the lane's part. T0 holds T_0 alone and
 * rotates it right by 8 x table bits. */
template <enum aes_lut_layout L>
static __device__ __forceinline__ uint32_t lookup(const aes_lut_lane &l, int table, uint32_t w,
                                                  int k)
{
    if constexpr (L == AES_LUT_LAYOUT_T0T1) {
        const uint32_t at = __byte_perm(w, l.part[table % 2], 0x7604u + 16u * (uint32_t)k);
        return *(const uint32_t *)((const unsigned char *)aes_lut_smem + at);
    } else {
        const uint32_t x = __byte_perm(w, 0, 0x4440u + (uint32_t)k);
        if constexpr (L == AES_LUT_LAYOUT_CONSTANT)
            return t_constant[aes_lut_entry_word(L, table, x)];
        const uint32_t t = *(const uint32_t *)__cvta_shared_to_generic(
            l.mine + 4u * aes_lut_entry_word(L, table, x));
        if constexpr (L == AES_LUT_LAYOUT_T0) {
            constexpr uint32_t rotate[4] = {0x3210u, 0x0321u, 0x1032u, 0x2103u}; /* 0-24 bits */
            return table == 0 ? t : __byte_perm(t, t, rotate[table]);
        }
        return t;
    }
}

/* Encrypts K blocks at once (their lookups interleaved, for the latency of
 * shared memory): s[k] holds block k's 4 big-endian words in, the
 * ciphertext out as 4 little-endian words (the bytes in memory order). Round
 * r reads, for output column c, T_i of row i of column c + i (ShiftRows),
 * then adds round key r; the last round reads T_0 (the S-box, its byte 2)
 * and gathers the 4 bytes of a column with 3 PRMTs, already byte-swapped. */
template <enum aes_lut_layout L, int ROUNDS, int K>
static __device__ __forceinline__ void encrypt(uint32_t s[K][4], const aes_lut_lane &l,
                                               const struct aes_lut_params &p)
{
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int c = 0; c < 4; ++c)
            s[k][c] ^= p.rk[c];
    }
    /* The middle rounds stay a loop, their keys read by a uniform index
     * (ULDC): unrolled, the aligned AES-256 kernel was 93 KiB of SASS, and
     * its warps waited for instructions 1.0-2.0 cycles an issue (ncu's
     * stalled_no_instruction; 0.02 as a loop, 27 KiB), which cost AES-256
     * 1.14-1.23x and AES-128 1.04-1.14x (docs/notes/aes_lut/). */
#pragma unroll 1
    for (int r = 1; r < ROUNDS; ++r) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            uint32_t t[4];
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const uint32_t a = lookup<L>(l, 0, s[k][c], 3),
                               b = lookup<L>(l, 1, s[k][(c + 1) & 3], 2),
                               x = lookup<L>(l, 2, s[k][(c + 2) & 3], 1),
                               y = lookup<L>(l, 3, s[k][(c + 3) & 3], 0), key = p.rk[4 * r + c];
                /* T0T1: T_2 ^ T_3 ^ key = rotate16(T_0 ^ T_1 ^ rotate16(key)) */
                t[c] = a ^ b ^
                       (L == AES_LUT_LAYOUT_T0T1 ? rotate16(x ^ y ^ rotate16(key)) : x ^ y ^ key);
            }
#pragma unroll
            for (int c = 0; c < 4; ++c)
                s[k][c] = t[c];
        }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) { /* the last round: SubBytes, ShiftRows, AddRoundKey */
        uint32_t t[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const uint32_t a = lookup<L>(l, 0, s[k][c], 3),
                           b = lookup<L>(l, 0, s[k][(c + 1) & 3], 2),
                           x = lookup<L>(l, 0, s[k][(c + 2) & 3], 1),
                           y = lookup<L>(l, 0, s[k][(c + 3) & 3], 0);
            /* S[.] is byte 2 of each: bytes 0-3 of the column in memory order */
            t[c] = __byte_perm(__byte_perm(a, b, 0x0062), __byte_perm(x, y, 0x6200), 0x7610) ^
                   bswap(p.rk[4 * ROUNDS + c]);
        }
#pragma unroll
        for (int c = 0; c < 4; ++c)
            s[k][c] = t[c];
    }
}

/* 16 bytes as 4 little-endian words: one 16-byte load where aligned, bytes
 * otherwise; `bytes` < 16 for a partial last block (the rest read as 0). */
template <bool ALIGNED> static __device__ __forceinline__ uint4 load16(const uint8_t *p, int bytes)
{
    if (ALIGNED && bytes == 16)
        return __ldg((const uint4 *)p);
    uint32_t w[4] = {0, 0, 0, 0};
    for (int i = 0; i < bytes; ++i)
        w[i / 4] |= (uint32_t)p[i] << (8 * (i % 4));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <bool ALIGNED>
static __device__ __forceinline__ void store16(uint8_t *p, uint4 v, int bytes)
{
    if (ALIGNED && bytes == 16) {
        *(uint4 *)p = v;
        return;
    }
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    for (int i = 0; i < bytes; ++i)
        p[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

/* The cipher's input for block b: the counter block counter + b (the carry
 * across all 128 bits), or the plaintext block, as big-endian words. */
template <bool CTR>
static __device__ __forceinline__ void block_input(uint32_t s[4], uint4 in,
                                                   const struct aes_lut_params &p, int64_t b)
{
    if (CTR) {
        const uint64_t lo = p.ctr_lo + (uint64_t)b, hi = p.ctr_hi + (lo < p.ctr_lo);
        s[0] = (uint32_t)(hi >> 32), s[1] = (uint32_t)hi;
        s[2] = (uint32_t)(lo >> 32), s[3] = (uint32_t)lo;
    } else {
        s[0] = bswap(in.x), s[1] = bswap(in.y), s[2] = bswap(in.z), s[3] = bswap(in.w);
    }
}

/* The output: CTR xors the keystream into the input, ECB is the cipher's
 * (encrypt's words are already in memory order). */
template <bool CTR>
static __device__ __forceinline__ uint4 block_output(const uint32_t s[4], uint4 in)
{
    if (CTR)
        return make_uint4(in.x ^ s[0], in.y ^ s[1], in.z ^ s[2], in.w ^ s[3]);
    return make_uint4(s[0], s[1], s[2], s[3]);
}

/* Each block writes its tables to shared memory (none for the constant
 * variant), then encrypts its share of the tiles: thread t takes blocks t,
 * t + THREADS, ... of a tile, AES_LUT_PER_THREAD at once (a warp's loads
 * and stores: 32 consecutive 16-byte blocks). The last, partial tile, and
 * unaligned buffers, go one block at a time. */
template <enum aes_lut_layout L, int ROUNDS, bool CTR, bool ALIGNED>
__global__ void __launch_bounds__(AES_LUT_THREADS,
                                  BF_MIN_BLOCKS(AES_LUT_THREADS, AES_LUT_BLOCKS_PER_SM(L)))
    aes_lut_kernel(uint8_t *out, const uint8_t *in, const struct aes_lut_params p)
{
    constexpr uint32_t WORDS = AES_LUT_WORDS(L);
    uint4 *const smem = aes_lut_smem; /* 4 * WORDS bytes, the launch's */
    const int tid = threadIdx.x, lane = tid % 32;
    const aes_lut_lane l = {(uint32_t)__cvta_generic_to_shared(smem) +
                                4u * aes_lut_lane_word(L, lane),
                            {4u * aes_lut_word(L, 0, 0u, lane), 4u * aes_lut_word(L, 1, 0u, lane)}};

    /* Set-up: word w holds T_table[x], T_0[x] rotated by `table` bytes
     * (`if constexpr`: the constant variant has no tables to write). Every
     * thread writes WORDS / 4 / THREADS vectors (1, T0's 8 or T0T1's 16),
     * unrolled so that their loads of T_0 are in flight together. */
    if constexpr (WORDS > 0) {
        static_assert(WORDS / 4 % AES_LUT_THREADS == 0, "whole vectors a thread");
#pragma unroll
        for (uint32_t i = 0; i < WORDS / 4 / AES_LUT_THREADS; ++i) {
            const uint32_t v = (uint32_t)tid + i * AES_LUT_THREADS;
            uint32_t w[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                int table;
                uint32_t x;
                aes_lut_entry(L, 4 * v + j, &table, &x);
                const uint32_t t = t0_global[x];
                w[j] = table == 0 ? t : __funnelshift_r(t, t, 8 * table);
            }
            smem[v] = make_uint4(w[0], w[1], w[2], w[3]);
        }
        __syncthreads();
    }

    const int64_t begin = blockIdx.x * p.share * AES_LUT_TILE,
                  end = begin + p.share * AES_LUT_TILE < p.blocks ? begin + p.share * AES_LUT_TILE
                                                                  : p.blocks;
    const int64_t whole = p.n / 16; /* blocks of 16 bytes */
    for (int64_t base = begin; base < end; base += AES_LUT_TILE) {
        if (ALIGNED && base + AES_LUT_TILE <= whole) {
            uint4 x[AES_LUT_PER_THREAD] = {};
            uint32_t s[AES_LUT_PER_THREAD][4];
#pragma unroll
            for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
                const int64_t b = base + k * AES_LUT_THREADS + tid;
                if (!CTR)
                    x[k] = load16<true>(in + 16 * b, 16);
                block_input<CTR>(s[k], x[k], p, b);
            }
            encrypt<L, ROUNDS, AES_LUT_PER_THREAD>(s, l, p);
            /* CTR's keystream needs no input: its blocks are loaded only now,
             * so they hold no registers through the rounds (at the 64 or 80
             * a thread that 4 or 3 blocks an SM allow). */
#pragma unroll
            for (int k = 0; CTR && k < AES_LUT_PER_THREAD; ++k)
                x[k] = load16<true>(in + 16 * (base + k * AES_LUT_THREADS + tid), 16);
#pragma unroll
            for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
                const int64_t b = base + k * AES_LUT_THREADS + tid;
                store16<true>(out + 16 * b, block_output<CTR>(s[k], x[k]), 16);
            }
        } else {
            for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
                const int64_t b = base + k * AES_LUT_THREADS + tid;
                if (b >= end)
                    break;
                const int bytes = b < whole ? 16 : (int)(p.n - 16 * b);
                const uint4 x = load16<ALIGNED>(in + 16 * b, bytes);
                uint32_t s[1][4];
                block_input<CTR>(s[0], x, p, b);
                encrypt<L, ROUNDS, 1>(s, l, p);
                store16<ALIGNED>(out + 16 * b, block_output<CTR>(s[0], x), bytes);
            }
        }
    }
}

/* ---- host: key expansion and launchers ---- */

/* FIPS-197 section 5.2 on big-endian words: rk[i] = w[i]. Returns Nr. */
static int expand_key(const uint8_t *key, int key_bytes, uint32_t rk[60])
{
    const int nk = key_bytes / 4, nr = nk + 6;
    uint32_t rcon = 1;
    for (int i = 0; i < nk; ++i)
        rk[i] = (uint32_t)key[4 * i] << 24 | (uint32_t)key[4 * i + 1] << 16 |
                (uint32_t)key[4 * i + 2] << 8 | key[4 * i + 3];
    for (int i = nk; i < 4 * (nr + 1); ++i) {
        uint32_t t = rk[i - 1];
        if (i % nk == 0 || (nk > 6 && i % nk == 4)) {
            if (i % nk == 0)
                t = t << 8 | t >> 24; /* RotWord */
            t = (t0_host[t >> 24] >> 16 & 0xffu) << 24 |
                (t0_host[t >> 16 & 0xffu] >> 16 & 0xffu) << 16 |
                (t0_host[t >> 8 & 0xffu] >> 16 & 0xffu) << 8 | (t0_host[t & 0xffu] >> 16 & 0xffu);
            if (i % nk == 0) {
                t ^= rcon << 24;
                rcon = (rcon << 1 ^ (rcon & 0x80u ? 0x11bu : 0u)) & 0xffu;
            }
        }
        rk[i] = rk[i - nk] ^ t;
    }
    return nr;
}

template <enum aes_lut_layout L, int ROUNDS, bool CTR>
static cudaError_t launch(uint8_t *out, const uint8_t *in, const struct aes_lut_params &p,
                          int64_t grid, bool aligned, cudaStream_t stream)
{
    auto kernel =
        aligned ? aes_lut_kernel<L, ROUNDS, CTR, true> : aes_lut_kernel<L, ROUNDS, CTR, false>;
    const cudaError_t err = aes_lut_allow_tables<L>(kernel);
    if (err != cudaSuccess)
        return err;
    kernel<<<(unsigned)grid, AES_LUT_THREADS, 4u * AES_LUT_WORDS(L), stream>>>(out, in, p);
    return cudaGetLastError();
}

template <enum aes_lut_layout L>
static cudaError_t launch_rounds(bool ctr, int rounds, uint8_t *out, const uint8_t *in,
                                 const struct aes_lut_params &p, int64_t grid, bool aligned,
                                 cudaStream_t stream)
{
    if (rounds == 10)
        return ctr ? launch<L, 10, true>(out, in, p, grid, aligned, stream)
                   : launch<L, 10, false>(out, in, p, grid, aligned, stream);
    if (rounds == 12)
        return ctr ? launch<L, 12, true>(out, in, p, grid, aligned, stream)
                   : launch<L, 12, false>(out, in, p, grid, aligned, stream);
    return ctr ? launch<L, 14, true>(out, in, p, grid, aligned, stream)
               : launch<L, 14, false>(out, in, p, grid, aligned, stream);
}

/* `variant` in `layout`, or, where that is AES_LUT_LAYOUTS, in the layout
 * this GPU's limits pick for it (aes_lut_layout_of). */
static cudaError_t run(enum aes_lut_variant variant, enum aes_lut_layout layout, bool ctr,
                       const uint8_t *key, int key_bytes, const uint8_t *counter, uint8_t *out,
                       const uint8_t *in, int64_t n, cudaStream_t stream)
{
    if ((unsigned)variant >= AES_LUT_VARIANTS || (unsigned)layout > AES_LUT_LAYOUTS ||
        key == NULL || (key_bytes != 16 && key_bytes != 24 && key_bytes != 32) ||
        (ctr && counter == NULL) || (n > 0 && (in == NULL || out == NULL)) ||
        aes_lut_refusal(!ctr, n) != NULL)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    struct aes_lut_params p;
    const int rounds = expand_key(key, key_bytes, p.rk);
    p.ctr_hi = p.ctr_lo = 0;
    for (int i = 0; ctr && i < 8; ++i) {
        p.ctr_hi = p.ctr_hi << 8 | counter[i];
        p.ctr_lo = p.ctr_lo << 8 | counter[8 + i];
    }
    p.n = n;
    p.blocks = (n + 15) / 16;
    int device, sms;
    struct bf_sm_limits sm;
    cudaError_t err;
    if ((err = cudaGetDevice(&device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) !=
            cudaSuccess ||
        (err = bf_sm_limits_query(device, &sm)) != cudaSuccess)
        return err;
    if (layout == AES_LUT_LAYOUTS)
        layout = aes_lut_layout_of(variant, sm);
    const int64_t grid = aes_lut_grid(layout, p.blocks, sms, sm);
    p.share = aes_lut_share(p.blocks, grid);
    const bool aligned = ((uintptr_t)in | (uintptr_t)out) % 16 == 0;
    switch (layout) {
    case AES_LUT_LAYOUT_SHARED:
        return launch_rounds<AES_LUT_LAYOUT_SHARED>(ctr, rounds, out, in, p, grid, aligned, stream);
    case AES_LUT_LAYOUT_CONSTANT:
        return launch_rounds<AES_LUT_LAYOUT_CONSTANT>(ctr, rounds, out, in, p, grid, aligned,
                                                      stream);
    case AES_LUT_LAYOUT_T0T1:
        return launch_rounds<AES_LUT_LAYOUT_T0T1>(ctr, rounds, out, in, p, grid, aligned, stream);
    default:
        return launch_rounds<AES_LUT_LAYOUT_T0>(ctr, rounds, out, in, p, grid, aligned, stream);
    }
}

extern "C" cudaError_t aes_lut_ctr(enum aes_lut_variant variant, const uint8_t *key, int key_bytes,
                                   const uint8_t counter[16], uint8_t *out, const uint8_t *in,
                                   int64_t n, cudaStream_t stream)
{
    return run(variant, AES_LUT_LAYOUTS, true, key, key_bytes, counter, out, in, n, stream);
}

extern "C" cudaError_t aes_lut_ecb(enum aes_lut_variant variant, const uint8_t *key, int key_bytes,
                                   uint8_t *out, const uint8_t *in, int64_t n, cudaStream_t stream)
{
    return run(variant, AES_LUT_LAYOUTS, false, key, key_bytes, NULL, out, in, n, stream);
}

extern "C" cudaError_t aes_lut_run_layout(enum aes_lut_layout layout, int ctr, const uint8_t *key,
                                          int key_bytes, const uint8_t *counter, uint8_t *out,
                                          const uint8_t *in, int64_t n, cudaStream_t stream)
{
    if ((unsigned)layout >= AES_LUT_LAYOUTS)
        return cudaErrorInvalidValue;
    const enum aes_lut_variant variant =
        layout == AES_LUT_LAYOUT_T0 ? AES_LUT_REPLICATED : (enum aes_lut_variant)layout;
    return run(variant, layout, ctr != 0, key, key_bytes, counter, out, in, n, stream);
}
